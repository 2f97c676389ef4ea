//! The benchmark harness verifies its workloads, through the library
//! `adl_bench` as the `adl-bench` command line runs it: every digest of
//! `bench/WORKLOADS.md`'s three workloads, on reduced sizes (the expected
//! digests are then computed from the spec's formulas alone, in the
//! harness), through every collation path, with 0 and 2 workers (W2 also with an
//! order-sensitive digest, which a wrong flip changes); W2's
//! batch kernels on the CPU (fused, block by block) and, where there is an
//! OpenCL device, on it. `cargo xtask test` also runs W1-W3 at full size in
//! release against the spec's own digests.
//!
//! W4 reads a dataset on disk: the test writes the `--small` one with
//! `bench/peer/w4/generate.py` (Python with numpy, Pillow and
//! scikit-image: `target/w4-venv`'s, `W4_PYTHON`, or a venv it makes in
//! `target/w4-test-venv`), checks adl's digests against W4.md's, then
//! adl's against the Python reference loop (`w4.py`): the same exact
//! digests, and the image within W4.md's tolerance.

use std::path::{Path, PathBuf};
use std::process::Command;

fn verify(args: &[&str]) {
    let mut command_line: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    command_line.push("--verify".into());
    match adl_bench::run(command_line) {
        Ok(true) => {}
        Ok(false) => panic!("a digest does not match: adl-bench {}", args.join(" ")),
        Err(e) => panic!("adl-bench {} failed: {e}", args.join(" ")),
    }
}

#[test]
fn w1_verifies_through_every_collation_path() {
    for collate in ["gather", "in-place", "samples"] {
        for workers in ["0", "2"] {
            verify(&[
                "--workload",
                "w1",
                "--samples",
                "3000",
                "--collate",
                collate,
                "--workers",
                workers,
            ]);
        }
    }
    // Later epochs timed after the warm one (compare.py's passes beside
    // the C loop's), then the verify epoch: the same digests.
    verify(&[
        "--workload",
        "w1",
        "--samples",
        "3000",
        "--workers",
        "2",
        "--later-epochs",
        "3",
    ]);
}

#[test]
fn w2_verifies_on_the_cpu_and_on_the_device() {
    // The first OpenCL device, whatever its kind (POCL's CPU device in
    // CI), named as a CPU device must be.
    let opencl = adl::graph::opencl::OpenCl::open(&adl::graph::opencl::DeviceChoice::Index {
        platform: 0,
        device: 0,
    })
    .is_ok_and(|d| d.is_some());
    for collate in ["in-place", "gather", "samples"] {
        for device in ["rust", "auto", "0:0"] {
            if device == "0:0" && !opencl {
                continue;
            }
            verify(&[
                "--workload",
                "w2",
                "--samples",
                "200",
                "--collate",
                collate,
                "--device",
                device,
            ]);
        }
    }
    verify(&["--workload", "w2", "--samples", "200", "--fusion", "off"]);
    if opencl {
        verify(&[
            "--workload",
            "w2",
            "--samples",
            "200",
            "--fusion",
            "off",
            "--device",
            "0:0",
        ]);
    }
}

#[test]
fn w3_verifies_through_both_collation_paths() {
    for collate in ["gather", "samples"] {
        verify(&["--workload", "w3", "--samples", "500", "--collate", collate]);
    }
}

#[test]
fn the_order_run_reads_every_rank_s_first_batches() {
    for sampler in ["shuffle", "sorted-keys"] {
        let run = [
            "--workload",
            "order",
            "--samples",
            "5000",
            "--ranks",
            "3",
            "--sampler",
        ]
        .into_iter()
        .chain([sampler])
        .map(String::from);
        assert_eq!(adl_bench::run(run), Ok(true), "{sampler}");
    }
}

#[test]
fn bad_arguments_are_errors_that_say_what_is_wrong() {
    let err = adl_bench::run(["--workload".to_string(), "w9".to_string()]).unwrap_err();
    assert!(err.contains("w1, w2, w3, w4 or order"), "{err}");
    let err = adl_bench::run(["--workload", "order", "--sampler", "random"].map(String::from))
        .unwrap_err();
    assert!(
        err.contains("--sampler must be shuffle or sorted-keys"),
        "{err}"
    );
    let err =
        adl_bench::run(["--workload", "order", "--ranks", "0"].map(String::from)).unwrap_err();
    assert!(err.contains("--ranks must be at least 1"), "{err}");
    let err = adl_bench::run(["--workers".to_string(), "two".to_string()]).unwrap_err();
    assert!(err.contains("takes a number"), "{err}");
    let err = adl_bench::run(["--workload", "w3", "--collate", "in-place"].map(String::from))
        .unwrap_err();
    assert!(err.contains("in-place is for W1 and W2"), "{err}");
    let err = adl_bench::run(["--workload", "w4"].map(String::from)).unwrap_err();
    assert!(err.contains("needs --data DIR"), "{err}");
    let err =
        adl_bench::run(["--workload", "w4", "--data", "x", "--cold", "warm"].map(String::from))
            .unwrap_err();
    assert!(
        err.contains("--cold must be fadvise, drop_caches or none"),
        "{err}"
    );
    let err = adl_bench::run(["--workload", "w4", "--data", "/nowhere/w4"].map(String::from))
        .unwrap_err();
    assert!(
        err.contains("/nowhere/w4") && err.contains("generate.py"),
        "{err}"
    );
}

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ is in the repository")
        .to_path_buf()
}

/// Whether `python` runs and imports numpy, Pillow and scikit-image.
fn has_w4_modules(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import numpy, PIL, skimage"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A Python that has what `generate.py` needs: `W4_PYTHON`, else
/// `target/w4-venv`'s, else one of a venv made in `target/w4-test-venv`
/// (numpy, Pillow and scikit-image installed with pip). Panics naming
/// what to install where there is no Python to make one.
fn w4_python(target: &Path) -> PathBuf {
    if let Some(given) = std::env::var_os("W4_PYTHON") {
        let given = PathBuf::from(given);
        assert!(
            has_w4_modules(&given),
            "W4_PYTHON={} cannot import numpy, PIL and skimage: pip install numpy pillow scikit-image",
            given.display()
        );
        return given;
    }
    for venv in ["w4-venv", "w4-test-venv"] {
        let python = target.join(venv).join("bin/python");
        if has_w4_modules(&python) {
            return python;
        }
    }
    let venv = target.join("w4-test-venv");
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "the W4 test writes its dataset with Python 3 (numpy, Pillow, scikit-image): install python3 with its venv module \
         (Debian: apt-get install python3 python3-venv), or set W4_PYTHON to a python that has numpy, pillow and scikit-image"
    );
    let python = venv.join("bin/python");
    let installed = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "numpy",
            "pillow",
            "scikit-image",
        ])
        .status();
    assert!(
        installed.is_ok_and(|s| s.success()) && has_w4_modules(&python),
        "pip could not install numpy, pillow and scikit-image into {}: install them there (or set W4_PYTHON)",
        venv.display()
    );
    python
}

/// Run `python` with `args` in the repository's root; its standard output,
/// or a panic with its standard error.
fn run_python(python: &Path, args: &[&str]) -> String {
    let out = Command::new(python)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    assert!(
        out.status.success(),
        "{} {} failed:\n{}{}",
        python.display(),
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What checks adl's verify output (`w4_verify_adl.json` and the first
/// batch's `u8` images in OUT) against w4.py's plain reference loop over
/// DATA: the exact digests equal, and the image within W4.md §3.3's
/// tolerance (each batch's `u8` sum within one per value, the first
/// batch's mean |difference| at most 1.5).
const COMPARE: &str = r#"
import json, os, sys
sys.path.insert(0, os.path.join("bench", "peer", "w4"))
import numpy as np
import w4
data, out = sys.argv[1], sys.argv[2]
ref = w4.reference_verify(data)
want = ref.result()
got = json.load(open(os.path.join(out, "w4_verify_adl.json")))
problems = []
for field in w4.EXACT_FIELDS:
    if got["digest"][field] != want["digest"][field]:
        problems.append(f"digest {field}: adl {got['digest'][field]}, reference {want['digest'][field]}")
if len(got["image_u8_batch_sums"]) != len(want["image_u8_batch_sums"]):
    problems.append("a different number of batches")
last = want["samples"] - w4.BATCH * (len(want["image_u8_batch_sums"]) - 1)
for b, (a, r) in enumerate(zip(got["image_u8_batch_sums"], want["image_u8_batch_sums"])):
    n = w4.BATCH if b + 1 < len(want["image_u8_batch_sums"]) else last
    if abs(a - r) > n * 3 * w4.CROP * w4.CROP:
        problems.append(f"batch {b}: image u8 sum {a}, reference {r}")
first = np.load(os.path.join(out, "w4_first_batch_image_u8_adl.npy"))
if first.shape != ref.first_u8.shape:
    problems.append(f"first batch {first.shape}, reference {ref.first_u8.shape}")
else:
    d = np.abs(first.astype(np.int16) - ref.first_u8.astype(np.int16))
    print(f"first batch: mean |d| {d.mean():.3f}, p99.9 {np.percentile(d, 99.9):.0f}, max {d.max()}")
    if d.mean() > 1.5:
        problems.append(f"first batch: mean |d| {d.mean():.3f} > 1.5")
if problems:
    sys.exit("adl's W4 disagrees with w4.py:\n  " + "\n  ".join(problems))
print("ok")
"#;

#[test]
fn w4_verifies_on_the_small_dataset_and_agrees_with_the_python_reference() {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let python = w4_python(&target);
    // A dataset of this run's own (two test runs at once do not share one).
    let dir = target.join(format!("w4-test/{}", std::process::id()));
    let data = dir.join("small");
    let generate = root().join("bench/peer/w4/generate.py");
    run_python(
        &python,
        &[
            &generate.display().to_string(),
            "--small",
            "--force",
            &data.display().to_string(),
        ],
    );
    for workers in ["2", "0"] {
        let out = dir.join(format!("out-{workers}"));
        let (data, out) = (data.display().to_string(), out.display().to_string());
        verify(&[
            "--workload",
            "w4",
            "--data",
            &data,
            "--workers",
            workers,
            "--verify-out",
            &out,
        ]);
        let said = run_python(&python, &["-c", COMPARE, &data, &out]);
        assert!(said.ends_with("ok\n"), "{said}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
