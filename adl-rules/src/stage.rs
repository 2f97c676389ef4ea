/// The stage a node belongs to, as in the specification's pipeline:
/// `sample` (per sample, CPU) → `collate` (exactly once) → `batch` (per
/// batch, nominally on an accelerator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// A per-sample transform.
    Sample,
    /// The one collate: samples → batch.
    Collate,
    /// A per-batch transform.
    Batch,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 3] = [Stage::Sample, Stage::Collate, Stage::Batch];

    /// The DSL keyword: `sample`, `collate`, `batch`.
    pub fn keyword(self) -> &'static str {
        match self {
            Stage::Sample => "sample",
            Stage::Collate => "collate",
            Stage::Batch => "batch",
        }
    }

    /// The stage of a DSL keyword.
    pub fn from_keyword(word: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.keyword() == word)
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.keyword())
    }
}

/// Where a node runs, as a plan schedules it and a loader's statistics
/// record it. New devices may be added, hence `#[non_exhaustive]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Device {
    /// On the CPU: sample nodes, the collate, batch nodes without a
    /// kernel, and kernel nodes where there is no device (their Rust body,
    /// or a fused loop).
    Cpu,
    /// On an OpenCL device, as a kernel: batch nodes that declare one,
    /// where the loader has a device that runs them.
    OpenCl,
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Device::Cpu => "cpu",
            Device::OpenCl => "opencl",
        })
    }
}

/// The section of a pipeline a node is written under: `pre:`, `sample:`,
/// `collate:`, `batch:` or `post:`, in the order they run. `pre:` stands
/// in the sample stage and `post:` in the batch stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// `pre:`: before the body, on every sample.
    Pre,
    /// `sample:`.
    Sample,
    /// `collate:` (or a parallel form, which collates in each branch).
    Collate,
    /// `batch:`.
    Batch,
    /// `post:`: after the body, on every batch.
    Post,
}

impl Section {
    /// Every section, in the order they run.
    pub const ALL: [Section; 5] = [
        Section::Pre,
        Section::Sample,
        Section::Collate,
        Section::Batch,
        Section::Post,
    ];

    /// The DSL keyword: `pre`, `sample`, `collate`, `batch`, `post`.
    pub fn keyword(self) -> &'static str {
        match self {
            Section::Pre => "pre",
            Section::Sample => Stage::Sample.keyword(),
            Section::Collate => Stage::Collate.keyword(),
            Section::Batch => Stage::Batch.keyword(),
            Section::Post => "post",
        }
    }

    /// The section of a DSL keyword.
    pub fn from_keyword(word: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.keyword() == word)
    }

    /// The stage the section's nodes stand in.
    ///
    /// ```
    /// use adl_rules::{Section, Stage};
    ///
    /// assert_eq!(Section::Pre.stands_in(), Stage::Sample);
    /// assert_eq!(Section::Post.stands_in(), Stage::Batch);
    /// ```
    pub fn stands_in(self) -> Stage {
        match self {
            Section::Pre | Section::Sample => Stage::Sample,
            Section::Collate => Stage::Collate,
            Section::Batch | Section::Post => Stage::Batch,
        }
    }
}

impl std::fmt::Display for Section {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.keyword())
    }
}
