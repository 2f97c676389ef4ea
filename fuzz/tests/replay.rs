//! Every fuzz target over its corpus (`fuzz/corpus/<target>`: the seeds
//! from the repository's real files and what the fuzzer kept) and its
//! regression cases (`fuzz/regressions/<target>`: each input a fuzzing
//! run found wrong, kept after the fix). A panic fails the run; an
//! allocation over the limit aborts it; an error that does not name its
//! file is a panic ([`adl_fuzz::named`]). Its own harness: the allocator
//! is the fuzzer's. A failing case is named; an abort (the allocation
//! limit) is not, so `ADL_FUZZ_VERBOSE=1` names each case before it runs.

use std::path::Path;

use adl_fuzz::{LimitedAllocator, Scratch, TARGETS};

#[global_allocator]
static ALLOCATOR: LimitedAllocator = LimitedAllocator;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let verbose = std::env::var_os("ADL_FUZZ_VERBOSE").is_some();
    let (mut total, mut failed) = (0, Vec::new());
    for (name, body) in TARGETS {
        let mut cases = 0;
        for folder in ["corpus", "regressions"] {
            let dir = root.join(folder).join(name);
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
                if std::panic::catch_unwind(|| body(&bytes)).is_err() {
                    failed.push(format!("{name}: {}", file.display()));
                }
                cases += 1;
            }
        }
        // A target without cases would replay nothing: the corpus is part
        // of the repository.
        assert!(
            cases > 0,
            "fuzz target {name} has no corpus under {}",
            root.display()
        );
        println!("replay {name}: {cases} cases ... ok");
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
