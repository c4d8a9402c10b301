//! Rebuild when a built-in level or a migration changes: `levels/` and `migrations/`
//! are compiled into the binary by macros that do not tell cargo which files they read.
fn main() {
    println!("cargo:rerun-if-changed=levels");
    // The database migrations are compiled in by sqlx::migrate!, which does not say
    // which files it read either.
    println!("cargo:rerun-if-changed=migrations");
}
