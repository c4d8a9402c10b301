# Stand-in for rust:VERSION-slim-bookworm (docker/ci.sh, where Docker Hub cannot be
# reached): the local Debian base, the packages the official slim image installs (gcc,
# libc6-dev, ca-certificates), and the machine's own rustup toolchain of the same
# version, copied in as the context's toolchain/. ca.crt is the machine's CA bundle,
# so that cargo fetches crates where TLS is re-signed on the way out.
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
COPY ca.crt /etc/ssl/certs/ca-certificates.crt
COPY toolchain/ /usr/local/cargo/
# The official image's layout: cargo and rustc on PATH under /usr/local/cargo.
ENV CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN cargo --version && rustc --version
