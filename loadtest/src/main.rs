//! The `arcade-loadtest` binary, also reached as `arcade loadtest`: parses the load
//! tester's command line, runs it, prints its report.
//!
//! A binary of its own (the loadtest/ crate) so that the server links none of what
//! only the load tester needs; `arcade loadtest ARGS` runs this one with ARGS.

use std::process::ExitCode;

use arcade_loadtest as loadtest;
use clap::Parser;

/// Open many sessions against a server, play, and report throughput and latency.
#[derive(Debug, Parser)]
#[command(name = "arcade loadtest", version)]
struct Cli {
    #[command(flatten)]
    options: loadtest::Options,
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    cli.options.admin_password = std::env::var("LOADTEST_ADMIN_PASSWORD").ok();
    load_test(&cli.options)
}

/// Run a load test on a multi-thread runtime and print its report; exit 1 when any
/// session failed (or a bot was answered with an error), so that a script can tell.
fn load_test(options: &loadtest::Options) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("arcade: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let report = match runtime.block_on(loadtest::run(options)) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("arcade loadtest: {error}");
            return ExitCode::FAILURE;
        }
    };
    if options.json {
        match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(error) => {
                eprintln!("arcade loadtest: cannot write the report as JSON: {error}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{report}");
    }
    // Closing thousands of sockets is the kernel's job; do not wait for the runtime.
    runtime.shutdown_background();
    // A bot's `error` line is something the protocol should never have to say to a
    // client that plays only legal actions: as much a failure for a script.
    let errors = report.bots.as_ref().map_or(0, |bots| bots.errors);
    if report.failures == 0 && errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
