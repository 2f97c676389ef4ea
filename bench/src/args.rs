//! The command line: the flags, their defaults and their checks.

use adl::graph::opencl::DeviceChoice;

/// What the command line asks for.
pub(crate) struct Args {
    /// `--workload`: w1, w2, w3 or w4.
    pub(crate) workload: String,
    /// `--workers`: the loader's workers (2).
    pub(crate) workers: usize,
    /// `--samples`: the workload's first N samples (all of them).
    pub(crate) samples: Option<usize>,
    /// `--device`: the OpenCL device of W2's batch kernels
    /// (`ADL_OPENCL_DEVICE`, else `auto`).
    pub(crate) device: DeviceChoice,
    /// `--fusion`: whether the device fuses consecutive kernels (on).
    pub(crate) fusion: bool,
    /// `--build-while-waiting`: whether the consumer's thread builds
    /// batches while it waits (on).
    pub(crate) build_while_waiting: bool,
    /// `--read-next-epoch`: whether W4's read stage reads the next
    /// epoch's first window once its own reads are all started (off).
    pub(crate) read_next_epoch: bool,
    /// `--verify`: digest one more epoch and check it.
    pub(crate) verify: bool,
    /// `--stage`: loader (the default) or batch (W2's batch stage alone).
    pub(crate) stage: String,
    /// `--batches`: the batches `--stage batch` times (200).
    pub(crate) batches: usize,
    /// `--collate`: gather, in-place or samples (in-place for W1 and W2,
    /// else gather).
    pub(crate) collate: String,
    /// `--stats`: the loader's statistics of the warm epoch.
    pub(crate) stats: bool,
    /// `--profile-epochs`: untimed warm epochs after the report (0).
    pub(crate) profile_epochs: usize,
    /// `--later-epochs`: timed epochs of the epoch-0 order after the warm
    /// one, their median reported (0: none).
    pub(crate) later_epochs: usize,
    /// `--soak`: epochs after the report, each its own order, resident
    /// memory and threads watched (0).
    pub(crate) soak: usize,
    /// `--data`: W4's dataset, written by `bench/peer/w4/generate.py`.
    pub(crate) data: Option<std::path::PathBuf>,
    /// `--data-url`: the same dataset in object storage (`s3://bucket/w4`,
    /// its store configured by the `AWS_*` variables), read from there;
    /// `--data` still names the traces and the files to check.
    pub(crate) data_url: Option<String>,
    /// `--cold`: how W4's cold epoch starts with its files out of the page
    /// cache: fadvise (the default), drop_caches or none.
    pub(crate) cold: String,
    /// `--read-latency-ms`: W4's delay before every read of every sensor
    /// (0: none).
    pub(crate) read_latency_ms: u64,
    /// `--readers`: the loader's read-stage threads (its default).
    pub(crate) readers: Option<usize>,
    /// `--memory-budget`: bytes the loader sizes its batches ahead and
    /// reads ahead under (none: 2 batches ahead per worker, the default
    /// read stage).
    pub(crate) memory_budget: Option<u64>,
    /// `--batches-ahead`: the loader's window of batches ahead (none: 2
    /// per worker; ignored under `--memory-budget`, which chooses it).
    pub(crate) batches_ahead: Option<usize>,
    /// `--verify-out`: with `--verify`, W4 writes its image checks here.
    pub(crate) verify_out: Option<std::path::PathBuf>,
    /// `--limit`: W4's work with no loader, on `--workers` threads: the
    /// machine's limit the loader is measured against (issue 44).
    pub(crate) limit: bool,
    /// `--ranks`: the ranks of `--workload order` (8).
    pub(crate) ranks: usize,
    /// `--sampler`: the order of `--workload order`, shuffle (the
    /// default) or sorted-keys.
    pub(crate) sampler: String,
}

/// The flags, for `--help` and the errors.
const USAGE: &str = "usage: adl-bench --workload w1|w2|w3 [--workers N] [--samples N] [--device auto|rust|NAME|P:D] [--fusion on|off] [--verify] [--stage loader|batch] [--batches N] [--collate gather|in-place|samples] [--stats] [--later-epochs N] [--profile-epochs N] [--soak N] [--memory-budget BYTES | --batches-ahead N]
       adl-bench --workload w4 --data DIR [--data-url URL] [--workers N] [--cold fadvise|drop_caches|none] [--read-latency-ms N] [--readers N] [--read-next-epoch on|off] [--memory-budget BYTES] [--verify [--verify-out DIR]] [--stats] [--limit]
       adl-bench --workload order [--samples N] [--ranks N] [--sampler shuffle|sorted-keys] [--workers N]";

/// The arguments (without the program's name), checked; the defaults
/// filled in.
pub(crate) fn parse(command_line: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut args = Args {
        workload: String::new(),
        workers: 2,
        samples: None,
        device: DeviceChoice::from_env().map_err(|e| e.to_string())?,
        fusion: true,
        build_while_waiting: true,
        read_next_epoch: false,
        verify: false,
        stage: "loader".into(),
        batches: 200,
        collate: String::new(),
        stats: false,
        profile_epochs: 0,
        later_epochs: 0,
        soak: 0,
        data: None,
        data_url: None,
        cold: "fadvise".into(),
        read_latency_ms: 0,
        readers: None,
        memory_budget: None,
        batches_ahead: None,
        verify_out: None,
        limit: false,
        ranks: 8,
        sampler: "shuffle".into(),
    };
    let mut it = command_line.into_iter();
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        let number = |text: String, name: &str| {
            text.parse::<usize>()
                .map_err(|_| format!("{name} takes a number, got {text:?}"))
        };
        match flag.as_str() {
            "--workload" => args.workload = value("--workload")?,
            "--workers" => args.workers = number(value("--workers")?, "--workers")?,
            "--samples" => args.samples = Some(number(value("--samples")?, "--samples")?),
            "--device" => args.device = DeviceChoice::parse(&value("--device")?)?,
            "--build-while-waiting" => {
                args.build_while_waiting = match value("--build-while-waiting")?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => {
                        return Err(format!(
                            "--build-while-waiting takes on or off, got {other:?}"
                        ));
                    }
                }
            }
            "--read-next-epoch" => {
                args.read_next_epoch = match value("--read-next-epoch")?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => {
                        return Err(format!("--read-next-epoch takes on or off, got {other:?}"));
                    }
                }
            }
            "--fusion" => {
                args.fusion = match value("--fusion")?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => return Err(format!("--fusion takes on or off, got {other:?}")),
                }
            }
            "--verify" => args.verify = true,
            "--limit" => args.limit = true,
            "--stats" => args.stats = true,
            "--stage" => args.stage = value("--stage")?,
            "--batches" => args.batches = number(value("--batches")?, "--batches")?,
            "--collate" => args.collate = value("--collate")?,
            "--profile-epochs" => {
                args.profile_epochs = number(value("--profile-epochs")?, "--profile-epochs")?;
            }
            "--later-epochs" => {
                args.later_epochs = number(value("--later-epochs")?, "--later-epochs")?;
            }
            "--soak" => args.soak = number(value("--soak")?, "--soak")?,
            "--data" => args.data = Some(value("--data")?.into()),
            "--data-url" => args.data_url = Some(value("--data-url")?),
            "--cold" => args.cold = value("--cold")?,
            "--read-latency-ms" => {
                args.read_latency_ms =
                    number(value("--read-latency-ms")?, "--read-latency-ms")? as u64;
            }
            "--readers" => args.readers = Some(number(value("--readers")?, "--readers")?),
            "--memory-budget" => {
                let bytes = number(value("--memory-budget")?, "--memory-budget")?;
                if bytes == 0 {
                    return Err("--memory-budget takes at least 1 byte".into());
                }
                args.memory_budget = Some(bytes as u64);
            }
            "--batches-ahead" => {
                let batches = number(value("--batches-ahead")?, "--batches-ahead")?;
                if batches == 0 {
                    return Err("--batches-ahead takes at least 1 batch".into());
                }
                args.batches_ahead = Some(batches);
            }
            "--verify-out" => args.verify_out = Some(value("--verify-out")?.into()),
            "--ranks" => args.ranks = number(value("--ranks")?, "--ranks")?,
            "--sampler" => args.sampler = value("--sampler")?,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    if !matches!(args.workload.as_str(), "w1" | "w2" | "w3" | "w4" | "order") {
        return Err(format!(
            "--workload must be w1, w2, w3, w4 or order\n{USAGE}"
        ));
    }
    if args.workload == "w4" {
        return w4_checked(args);
    }
    if args.limit {
        return Err(format!(
            "--limit is W4's (W1's and W2's limit is bench/peer/limit_c.c)\n{USAGE}"
        ));
    }
    if args.workload == "order" {
        if !matches!(args.sampler.as_str(), "shuffle" | "sorted-keys") {
            return Err(format!("--sampler must be shuffle or sorted-keys\n{USAGE}"));
        }
        if args.ranks == 0 {
            return Err(format!("--ranks must be at least 1\n{USAGE}"));
        }
        return Ok(args);
    }
    if args.data.is_some()
        || args.data_url.is_some()
        || args.read_latency_ms > 0
        || args.readers.is_some()
    {
        return Err(format!(
            "--data, --data-url, --read-latency-ms and --readers are W4's (its files on disk)\n{USAGE}"
        ));
    }
    if args.collate.is_empty() {
        args.collate = if matches!(args.workload.as_str(), "w1" | "w2") {
            "in-place"
        } else {
            "gather"
        }
        .into();
    }
    match (args.workload.as_str(), args.collate.as_str()) {
        (_, "gather" | "samples") | ("w1" | "w2", "in-place") => {}
        (_, "in-place") => {
            return Err(format!(
                "--collate in-place is for W1 and W2 (whose batch kernels read the rows where they lie)\n{USAGE}"
            ));
        }
        _ => {
            return Err(format!(
                "--collate must be gather, in-place or samples\n{USAGE}"
            ));
        }
    }
    if !matches!(args.stage.as_str(), "loader" | "batch") {
        return Err(format!("--stage must be loader or batch\n{USAGE}"));
    }
    Ok(args)
}

/// W4's arguments checked: its dataset named, a way to start cold, the
/// flags of the workloads in memory refused.
fn w4_checked(mut args: Args) -> Result<Args, String> {
    if args.data.is_none() {
        return Err(format!(
            "--workload w4 needs --data DIR, a dataset written by bench/peer/w4/generate.py DIR\n{USAGE}"
        ));
    }
    if !matches!(args.cold.as_str(), "fadvise" | "drop_caches" | "none") {
        return Err(format!(
            "--cold must be fadvise, drop_caches or none, got {:?}\n{USAGE}",
            args.cold
        ));
    }
    if args.samples.is_some() || args.stage != "loader" || !args.collate.is_empty() {
        return Err(format!(
            "--samples, --stage and --collate are not W4's: its samples are the dataset's, collated by #[derive(Collate)]\n{USAGE}"
        ));
    }
    if args.verify_out.is_some() && !args.verify {
        return Err(format!("--verify-out goes with --verify\n{USAGE}"));
    }
    if args.limit && (args.verify || args.data_url.is_some() || args.read_latency_ms > 0) {
        return Err(format!(
            "--limit times W4's work on the local files with no loader: not with --verify, --data-url or --read-latency-ms\n{USAGE}"
        ));
    }
    args.collate = "samples".into();
    Ok(args)
}
