//! Every fuzz target over its corpus (`fuzz/corpus/<target>`: the seeds
//! from the repository's real files and what the fuzzer kept) and its
//! regression cases (`fuzz/regressions/<target>`: each input a fuzzing
//! run found wrong, kept after the fix). A panic fails the run, even one
//! adl catches (around a third-party decoder) and turns into an error: as
//! under the fuzzer, whose panic hook aborts on any. An allocation over
//! the limit aborts it; an error that does not name its
//! file is a panic ([`adl_fuzz::named`]). Its own harness: the allocator
//! is the fuzzer's. A failing case is named; an abort (the allocation
//! limit) is not, so `ADL_FUZZ_VERBOSE=1` names each case before it runs.
//! `ADL_FUZZ_CORPUS=DIR` replays `DIR/<target>` instead (a fuzzer's working
//! corpus, `target/fuzz`), and `ADL_FUZZ_SHOW_ERRORS=1` prints every
//! error's message.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use adl_fuzz::{LimitedAllocator, Scratch, TARGETS};

#[global_allocator]
static ALLOCATOR: LimitedAllocator = LimitedAllocator;

/// Whether any panic happened during the case, caught or not.
static PANICKED: AtomicBool = AtomicBool::new(false);

fn main() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICKED.store(true, Ordering::SeqCst);
        report(info);
    }));
    let given = std::env::var_os("ADL_FUZZ_CORPUS").map(std::path::PathBuf::from);
    let root = given
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let verbose = std::env::var_os("ADL_FUZZ_VERBOSE").is_some();
    let (mut total, mut failed) = (0, Vec::new());
    for (name, body) in TARGETS {
        let mut cases = 0;
        let failed_before = failed.len();
        let folders = if given.is_some() {
            vec![root.join(name)]
        } else {
            vec![root.join(name), regressions.join(name)]
        };
        for dir in folders {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            files.sort();
            for file in files {
                let bytes = std::fs::read(&file)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
                if verbose {
                    eprintln!("replay {name}: {}", file.display());
                }
                PANICKED.store(false, Ordering::SeqCst);
                let escaped = std::panic::catch_unwind(|| body(&bytes)).is_err();
                if escaped || PANICKED.load(Ordering::SeqCst) {
                    failed.push(format!("{name}: {}", file.display()));
                }
                cases += 1;
            }
        }
        // A target without cases would replay nothing: the corpus is part
        // of the repository.
        assert!(
            cases > 0 || given.is_some(),
            "fuzz target {name} has no corpus under {}",
            root.display()
        );
        let verdict = match failed.len() - failed_before {
            0 => "ok".to_owned(),
            n => format!("{n} FAILED"),
        };
        println!("replay {name}: {cases} cases ... {verdict}");
        total += cases;
    }
    let _ = std::fs::remove_dir_all(Scratch::get().dir());
    if !failed.is_empty() {
        eprintln!("replay: {} of {total} cases failed:", failed.len());
        for case in &failed {
            eprintln!("  {case}");
        }
        std::process::exit(1);
    }
    println!("test replay ... ok ({total} cases)");
}
