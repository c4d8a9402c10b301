//! Rebuild when a built-in level changes: `levels/` is compiled into the binary by
//! `include_dir!`, which does not tell cargo which files it read.
fn main() {
    println!("cargo:rerun-if-changed=levels");
}
