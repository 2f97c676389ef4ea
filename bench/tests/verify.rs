//! The benchmark harness verifies its workloads, through the library
//! `adl_bench` as the `adl-bench` command line runs it: every digest of
//! `bench/WORKLOADS.md`'s three workloads, on reduced sizes (the expected
//! digests are then computed from the spec's formulas alone, in the
//! harness), through every collation path, with 0 and 2 workers (W2 also with an
//! order-sensitive digest, which a wrong flip changes); W2's
//! batch kernels on the CPU (fused, block by block) and, where there is an
//! OpenCL device, on it. `cargo xtask test` also runs W1-W3 at full size in
//! release against the spec's own digests.

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
}

#[test]
fn w2_verifies_on_the_cpu_and_on_the_device() {
    // The first OpenCL device, whatever its kind (POCL's CPU device in
    // CI), named as a CPU device must be.
    let opencl = adl::opencl::OpenCl::open(&adl::opencl::DeviceChoice::Index {
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
fn bad_arguments_are_errors_that_say_what_is_wrong() {
    let err = adl_bench::run(["--workload".to_string(), "w9".to_string()]).unwrap_err();
    assert!(err.contains("w1, w2 or w3"), "{err}");
    let err = adl_bench::run(["--workers".to_string(), "two".to_string()]).unwrap_err();
    assert!(err.contains("takes a number"), "{err}");
    let err = adl_bench::run(["--workload", "w3", "--collate", "in-place"].map(String::from))
        .unwrap_err();
    assert!(err.contains("in-place is for W1 and W2"), "{err}");
}
