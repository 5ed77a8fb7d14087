//! ragpipe-integration-tests: every end-to-end test that crosses services
//! lives in `tests/` here — the `ragpipe` CLI driven as a process (embedded
//! mode, the distributed deployment, chaos, hostile files, the admin page)
//! and the pipeline wired in-process (telemetry).
//!
//! Cargo only hands a test the path of a binary of its own package
//! (`CARGO_BIN_EXE_<name>`), so the tests here find the `ragpipe` binary
//! themselves: [`ragpipe_bin`].

use std::path::PathBuf;

/// The `ragpipe` executable the end-to-end tests run: `$RAGPIPE_BIN` when
/// set, else `ragpipe` in the profile directory the running test was built
/// into (a test executable is `target/<profile>/deps/<name>-<hash>`, the
/// binary `target/<profile>/ragpipe`), so a test runs the binary of its own
/// build, debug or release.
///
/// Cargo does not build another package's binary for these tests: panics,
/// saying how to build it, when it is missing.
pub fn ragpipe_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("RAGPIPE_BIN") {
        let bin = PathBuf::from(bin);
        assert!(bin.is_file(), "RAGPIPE_BIN={} is not a file", bin.display());
        return bin;
    }
    let exe = std::env::current_exe().expect("the running test's executable path");
    let mut dir = exe.parent().expect("the test executable's directory");
    if dir.ends_with("deps") {
        dir = dir.parent().expect("the profile directory above deps/");
    }
    let bin = dir.join(format!("ragpipe{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "no ragpipe binary at {}: the end-to-end tests run it, and cargo does not build another package's \
         binary for them. Build it first, in the tests' profile: `cargo build --workspace --bins --tests` \
         (what scripts/test.sh runs; it reuses the tests' dependency builds, where `cargo build -p ragpipe` \
         resolves other features and compiles part of the graph again), or point RAGPIPE_BIN at one",
        bin.display()
    );
    bin
}
