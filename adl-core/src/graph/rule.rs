//! The composition rules, as data, in one table.
//!
//! Each rule has an id (also the folder of its compile-fail tests,
//! `tests/ui/<id>/`), a message template and a help text. The same table
//! serves the `pipeline!` and `#[transform]` macros (which render the
//! messages as compile errors at the user's token) and the planner (which
//! renders them at run time). Rules that only the type checker can see
//! (a node's stage, a node's input type) also generate a marker trait
//! whose `#[diagnostic::on_unimplemented]` message is the rule's message,
//! so that rustc reports them in our words.
//!
//! Placeholders in messages: `{Self}` is the node, `{T}` the type given to
//! it; the others are named after what they stand for.

use super::Stage;

macro_rules! rules {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident {
            id: $id:literal,
            message: $message:literal,
            label: $label:literal,
            help: $help:literal,
            $(diagnostic: {
                $(#[doc = $tdoc:literal])*
                trait $trait_name:ident $(<$param:ident>)?
            },)?
        }
    )*) => {
        /// A composition rule. See [`Rule::ALL`] for the table. New rules
        /// may be added, hence `#[non_exhaustive]`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Rule {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Rule {
            /// Every rule.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            /// The rule's id, e.g. `collate_once`: stable, used for test
            /// folders and documentation anchors.
            pub fn id(self) -> &'static str {
                match self { $(Rule::$variant => $id,)* }
            }

            /// The message template (see the module docs for placeholders).
            pub fn template(self) -> &'static str {
                match self { $(Rule::$variant => $message,)* }
            }

            /// A short label for the offending token.
            pub fn label(self) -> &'static str {
                match self { $(Rule::$variant => $label,)* }
            }

            /// How to fix it.
            pub fn help(self) -> &'static str {
                match self { $(Rule::$variant => $help,)* }
            }
        }

        $($(
            $(#[doc = $tdoc])*
            #[diagnostic::on_unimplemented(message = $message, label = $label, note = $help)]
            pub trait $trait_name $(<$param>)? {}
        )?)*
    };
}

rules! {
    /// Two collates on one path: a pipeline collates exactly once.
    CollateOnce {
        id: "collate_once",
        message: "a pipeline collates exactly once: `{second}` would collate again after `{first}`",
        label: "a second collate",
        help: "keep one collate; to batch parts of a sample differently, use parallel branches, each with its own collate",
    }
    /// A path without a collate.
    MissingCollate {
        id: "missing_collate",
        message: "a pipeline collates exactly once, but {path} never collates",
        label: "no collate on this path",
        help: "add `collate: default` (PyTorch default_collate semantics) or `collate: your_collate` after `sample:`",
    }
    /// A batch node where samples flow.
    BatchNodeInSample {
        id: "batch_node_in_sample",
        message: "`{Self}` is not a sample node; it cannot stand under `sample:`",
        label: "not a sample node",
        help: "a batch node goes under `batch:` and a collate under `collate:`; a sample node is declared with `#[transform]` (without `batch`)",
        diagnostic: {
            /// A node that may stand under `sample:`. `#[transform]`
            /// implements it for sample nodes; `pipeline!` asserts it for
            /// every node under `sample:`.
            trait SampleNode
        },
    }
    /// A sample node where batches flow.
    SampleNodeInBatch {
        id: "sample_node_in_batch",
        message: "`{Self}` is not a batch node; it cannot stand under `batch:`",
        label: "not a batch node",
        help: "a sample node goes under `sample:` and a collate under `collate:`; a batch node is declared with `#[transform(batch)]`",
        diagnostic: {
            /// A node that may stand under `batch:`. `#[transform(batch)]`
            /// implements it; `pipeline!` asserts it for every node under
            /// `batch:`.
            trait BatchNode
        },
    }
    /// Neighbours whose types do not fit.
    TypeMismatch {
        id: "type_mismatch",
        message: "type mismatch: `{Self}` does not take `{T}`, which the node before it gives",
        label: "does not take the previous node's output",
        help: "make the previous node give the type this node takes (see the note on what it takes), or convert in between",
        diagnostic: {
            /// A node that takes `T` as input. `#[transform]` implements it
            /// for the node's input type; `pipeline!` asserts it between
            /// neighbours.
            trait Takes<T>
        },
    }
    /// Something other than a collate under `collate:`.
    NotACollate {
        id: "not_a_collate",
        message: "`{Self}` is not a collate of `{T}`; only a collate can stand under `collate:`",
        label: "not a collate of the samples before it",
        help: "write `collate: default` (PyTorch default_collate semantics) or a value implementing `adl::Collate` for the sample type; transforms go under `sample:` or `batch:`",
        diagnostic: {
            /// A collate of `T` samples: implemented for every
            /// [`Collate<T>`](crate::Collate); `pipeline!` asserts it for the
            /// node under `collate:`.
            trait CollateNode<T>
        },
    }
    /// A collate standing outside `collate:`.
    CollateOutOfPlace {
        id: "collate_out_of_place",
        message: "`{Self}` is a collate; it can only stand under `collate:`",
        label: "a collate outside `collate:`",
        help: "put it under `collate:` (a pipeline has exactly one)",
    }
    /// A stage keyword that does not exist.
    UnknownStage {
        id: "unknown_stage",
        message: "unknown stage `{given}:`; a pipeline has `pre:`, `sample:`, `collate:`, `batch:` and `post:`",
        label: "unknown stage",
        help: "write one of `pre`, `sample`, `collate`, `batch`, `post`",
    }
    /// The same stage twice.
    DuplicateStage {
        id: "duplicate_stage",
        message: "stage `{stage}:` is given twice",
        label: "given again here",
        help: "chain the nodes of one stage with `->` in a single `{stage}:` entry",
    }
    /// Stages out of order.
    StageOrder {
        id: "stage_order",
        message: "`{stage}:` cannot come after `{after}:`; the stages run in the order pre, sample, collate, batch, post",
        label: "out of order",
        help: "write the stages in the order pre, sample, collate, batch, post",
    }
    /// A stage with no node.
    EmptyStage {
        id: "empty_stage",
        message: "stage `{stage}:` is empty",
        label: "no node here",
        help: "give the stage at least one node, or leave it out (sample and batch default to the identity)",
    }
    /// Two branches with one name.
    DuplicateBranch {
        id: "duplicate_branch",
        message: "branch `{name}` is given twice",
        label: "given again here",
        help: "each field or key is routed to one branch; merge the two branches",
    }
    /// A branch without a name.
    MissingBranchName {
        id: "missing_branch_name",
        message: "a parallel branch needs the name of the field or key it takes",
        label: "no branch name",
        help: "write `field: { sample: ..., collate: ..., batch: ... }` (or `\"key\": { ... }` for map samples)",
    }
    /// A parallel form without branches.
    NoBranches {
        id: "no_branches",
        message: "a parallel form needs at least one branch",
        label: "no branch",
        help: "add `field: { sample: ..., collate: ..., batch: ... }` for each field to route",
    }
    /// An OpenCL kernel on a sample node.
    KernelOnSampleNode {
        id: "kernel_on_sample_node",
        message: "an OpenCL kernel runs on batches, but `{node}` is a sample node",
        label: "a kernel on a sample node",
        help: "declare the node `#[transform(batch, opencl = ...)]`, or drop the kernel",
    }
    /// A kernel source with no `__kernel` function named like the node.
    KernelEntry {
        id: "kernel_entry",
        message: "the OpenCL source of `{node}` has no `__kernel void {node}(...)`; the kernel runs the function named like the node",
        label: "no kernel named `{node}` in this source",
        help: "name the `__kernel` function `{node}`, or name the node after the kernel with `name = \"...\"`; the arguments follow the kernel ABI (see `adl::kernel`)",
    }
    /// `opencl = ...` with the `opencl` feature off.
    OpenClFeatureOff {
        id: "opencl_feature_off",
        message: "`opencl = ...` needs adl's `opencl` feature, which is off",
        label: "an OpenCL kernel without the `opencl` feature",
        help: "enable it (it is on by default): `adl = { version = \"0.1\", features = [\"opencl\"] }`, or drop the kernel",
    }
    /// A `#[transform]` option that does not exist or is malformed.
    TransformOption {
        id: "transform_option",
        message: "{problem}",
        label: "here",
        help: "#[transform] takes `sample` (the default) or `batch`, `opencl = \"kernel source\"` (or `include_str!(...)`), `args(field, ...)` (the kernel's own arguments, on an impl block), `name = \"...\"` and `crate = \"...\"`",
    }
    /// A `#[transform]` function or method of the wrong shape.
    TransformSignature {
        id: "transform_signature",
        message: "{problem}",
        label: "here",
        help: "a transform node is `fn name(input: In) -> Out` (or `-> Result<Out, E>`); on an impl block, `fn apply(&self, input: In) -> Out`",
    }
}

impl<T, C: crate::Collate<T> + ?Sized> CollateNode<T> for C {}

impl Rule {
    /// The message with its placeholders filled: `args` are
    /// `(placeholder, value)` pairs, e.g. `("Self", "flip")`.
    pub fn render(self, args: &[(&str, &str)]) -> String {
        fill(self.template(), args)
    }

    /// The help with its placeholders filled, as [`render`](Rule::render).
    pub fn render_help(self, args: &[(&str, &str)]) -> String {
        fill(self.help(), args)
    }
}

/// `text` with every `{key}` replaced by its value.
fn fill(text: &str, args: &[(&str, &str)]) -> String {
    let mut text = text.to_owned();
    for (key, value) in args {
        text = text.replace(&format!("{{{key}}}"), value);
    }
    text
}

/// A broken rule, found by [`check_path`] or by the planner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// Where: the branch path and node, e.g. `radar/sample/flip`.
    pub at: String,
    /// The rendered message.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} [{}]", self.at, self.message, self.rule.id())
    }
}

/// Which stage may follow which on a path from a source to a sink: the
/// stage rules of the specification as a table. `None` is the source.
pub const MAY_FOLLOW: &[(Option<Stage>, Stage)] = &[
    (None, Stage::Sample),
    (None, Stage::Collate),
    (Some(Stage::Sample), Stage::Sample),
    (Some(Stage::Sample), Stage::Collate),
    (Some(Stage::Collate), Stage::Batch),
    (Some(Stage::Batch), Stage::Batch),
];

/// Which rule a node breaks when it *is* of one stage but *stands* in
/// another: `(is, stands in, rule)`. Pairs not listed are fine.
pub const PLACEMENT: &[(Stage, Stage, Rule)] = &[
    (Stage::Batch, Stage::Sample, Rule::BatchNodeInSample),
    (Stage::Collate, Stage::Sample, Rule::CollateOutOfPlace),
    (Stage::Sample, Stage::Batch, Rule::SampleNodeInBatch),
    (Stage::Collate, Stage::Batch, Rule::CollateOutOfPlace),
    (Stage::Sample, Stage::Collate, Rule::NotACollate),
    (Stage::Batch, Stage::Collate, Rule::NotACollate),
];

/// The rule a node of stage `is` breaks by standing in `stands_in`, if any
/// (see [`PLACEMENT`]).
pub fn placement(is: Stage, stands_in: Stage) -> Option<Rule> {
    PLACEMENT
        .iter()
        .find(|(i, s, _)| *i == is && *s == stands_in)
        .map(|(_, _, rule)| *rule)
}

/// The stages a path may end with: it must have collated.
pub const MAY_END: &[Stage] = &[Stage::Collate, Stage::Batch];

/// Whether `next` may follow `previous` (`None`: the source) on a path.
pub fn may_follow(previous: Option<Stage>, next: Stage) -> bool {
    MAY_FOLLOW.contains(&(previous, next))
}

/// Check one path from source to sink: `nodes` are `(name, stage)` in
/// order, `at` names the path in messages. Returns every broken rule.
///
/// ```
/// use adl::graph::{Rule, Stage, check_path};
///
/// let ok = check_path("pipe", &[("flip", Stage::Sample), ("default", Stage::Collate)]);
/// assert!(ok.is_empty());
/// let twice = check_path("pipe", &[("a", Stage::Collate), ("b", Stage::Collate)]);
/// assert_eq!(twice[0].rule, Rule::CollateOnce);
/// ```
pub fn check_path(at: &str, nodes: &[(&str, Stage)]) -> Vec<Violation> {
    let mut found = Vec::new();
    let mut state: Option<Stage> = None;
    let mut collate: Option<&str> = None;
    let collates = nodes.iter().any(|&(_, stage)| stage == Stage::Collate);
    for &(name, stage) in nodes {
        let here = format!("{at}/{name}");
        // A batch node on a path that never collates is that path's
        // `missing_collate`, reported once below, not a misplaced node.
        let uncollated_batch = stage == Stage::Batch && !collates;
        if !may_follow(state, stage) && !uncollated_batch {
            let (rule, args) = match (stage, collate) {
                (Stage::Collate, Some(first)) => {
                    (Rule::CollateOnce, vec![("first", first), ("second", name)])
                }
                (Stage::Sample, Some(_)) => (Rule::SampleNodeInBatch, vec![("Self", name)]),
                _ => (Rule::BatchNodeInSample, vec![("Self", name)]),
            };
            found.push(Violation {
                rule,
                at: here,
                message: rule.render(&args),
            });
        }
        if stage == Stage::Collate && collate.is_none() {
            collate = Some(name);
        }
        // Keep walking from where the path should be, so that one
        // misplaced node gives one violation.
        state = Some(match (stage, collate.is_some()) {
            (Stage::Sample, true) => Stage::Batch,
            (Stage::Batch, false) => Stage::Sample,
            (s, _) => s,
        });
    }
    if collate.is_none() {
        let path = format!("`{at}`");
        found.push(Violation {
            rule: Rule::MissingCollate,
            at: at.to_owned(),
            message: Rule::MissingCollate.render(&[("path", &path)]),
        });
    }
    debug_assert!(!found.is_empty() || state.is_some_and(|s| MAY_END.contains(&s)));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_unique_id_and_text() {
        let mut ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), Rule::ALL.len());
        assert!(
            Rule::ALL
                .iter()
                .all(|r| !r.template().is_empty() && !r.help().is_empty())
        );
    }

    #[test]
    fn paths() {
        use Stage::*;
        let rules = |nodes: &[(&str, Stage)]| -> Vec<Rule> {
            check_path("p", nodes).into_iter().map(|v| v.rule).collect()
        };
        assert!(rules(&[("a", Sample), ("b", Sample), ("c", Collate), ("d", Batch)]).is_empty());
        assert!(rules(&[("c", Collate)]).is_empty());
        assert_eq!(rules(&[("a", Sample)]), vec![Rule::MissingCollate]);
        assert_eq!(
            rules(&[("a", Sample), ("n", Batch)]),
            vec![Rule::MissingCollate]
        );
        assert_eq!(rules(&[]), vec![Rule::MissingCollate]);
        assert_eq!(
            rules(&[("a", Batch), ("c", Collate)]),
            vec![Rule::BatchNodeInSample]
        );
        assert_eq!(
            rules(&[("c", Collate), ("a", Sample), ("b", Batch)]),
            vec![Rule::SampleNodeInBatch]
        );
        assert_eq!(
            rules(&[("c", Collate), ("d", Collate)]),
            vec![Rule::CollateOnce]
        );
        let v = check_path("p", &[("c", Collate), ("d", Collate)]);
        assert_eq!(
            v[0].message,
            "a pipeline collates exactly once: `d` would collate again after `c`"
        );
        assert_eq!(v[0].at, "p/d");
    }

    #[test]
    fn render_fills_placeholders() {
        assert_eq!(
            Rule::BatchNodeInSample.render(&[("Self", "normalize")]),
            "`normalize` is not a sample node; it cannot stand under `sample:`"
        );
    }
}
