//! The composition rules, as data, in one table: [`rule_table!`] holds
//! it, [`Rule`] is generated from it here, and `adl-core` generates from
//! it the marker traits whose `#[diagnostic::on_unimplemented]` messages
//! are the rules' own (rules only the type checker can see: a node's
//! stage, a node's input type).
//!
//! Each rule has an id (also the folder of its compile-fail tests,
//! `tests/ui/<id>/`), a message template, a label and a help text.
//! Placeholders in messages: `{Self}` is the node, `{T}` the type given to
//! it; the others are named after what they stand for.

/// The rule table, handed to `$callback!` as tokens: one entry per rule,
/// `Variant { id, message, label, help, diagnostic: { trait ... }? }`.
/// This crate builds [`Rule`] from it; `adl-core` its marker traits.
#[macro_export]
macro_rules! rule_table {
    ($callback:ident) => {
        $callback! {
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
            trait SampleNode {
                /// The node itself (`Self`): `pipeline!` checks a node's
                /// input through it, so that a node that cannot stand
                /// under `sample:` is that one error, not a second about
                /// what it takes.
                type Node;
            }
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
            trait BatchNode {
                /// The node itself (`Self`): `pipeline!` checks a node's
                /// input through it, so that a node that cannot stand
                /// under `batch:` is that one error, not a second about
                /// what it takes.
                type Node;
            }
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
    /// The first node of a branch does not take the branch's field.
    FieldTypeMismatch {
        id: "field_type_mismatch",
        message: "type mismatch: `{Self}` does not take `{T}`, the type of the field (or key) its branch takes",
        label: "does not take the branch's field",
        help: "a branch's first node takes the field (or the map's value) the branch is named after, as the sample type declares it; convert it in a node that takes that type, or route another field",
        diagnostic: {
            /// A node that takes `T` as the first node of a branch: every
            /// node that [`Takes<T>`]; `pipeline!` asserts it where a
            /// branch begins, so that the error names the field.
            trait TakesField<T>
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
        help: "declare the node `#[transform(batch, unsafe(opencl = ...))]`, or drop the kernel",
    }
    /// An OpenCL kernel given outside `unsafe(...)`.
    KernelWithoutUnsafe {
        id: "kernel_without_unsafe",
        message: "an OpenCL kernel is code nothing checks: on a CPU device it runs in this process, so `opencl = ...` goes inside `unsafe(...)`",
        label: "a kernel outside `unsafe(...)`",
        help: "write `unsafe(opencl = ...)` once the kernel reads and writes only within the buffers the kernel ABI gives it (see `adl::kernel`, \"Safety\"), and say why in a `// SAFETY:` comment above the attribute",
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
        message: "`unsafe(opencl = ...)` needs adl's `opencl` feature, which is off",
        label: "an OpenCL kernel without the `opencl` feature",
        help: "enable it (it is on by default): `adl = { version = \"0.1\", features = [\"opencl\"] }`, or drop the kernel",
    }
    /// A `#[transform]` option that does not exist or is malformed.
    TransformOption {
        id: "transform_option",
        message: "{problem}",
        label: "here",
        help: "#[transform] takes `sample` (the default) or `batch`, `unsafe(opencl = \"kernel source\")` (or `include_str!(...)`), `args(field, ...)` (the kernel's own arguments, on an impl block), `name = \"...\"` and `crate = \"...\"`",
    }
    /// A `#[transform]` function or method of the wrong shape.
    TransformSignature {
        id: "transform_signature",
        message: "{problem}",
        label: "here",
        help: "a transform node is `fn name(input: In) -> Out` (or `-> Result<Out, E>`); a sample node may also take its per-sample generator after the input, `fn name(input: In, rng: &mut SampleRng) -> Out`; any node may take the loader's buffers last, `fn name(input: In, buffers: Buffers<'_>) -> Out`; on an impl block, `fn apply(&self, input: In) -> Out`, with the same optional generator and buffers after the input",
    }
    /// `#[derive(Collate)]` on something that is not a struct with fields.
    CollateDeriveShape {
        id: "collate_derive_shape",
        message: "{problem}",
        label: "not a struct with fields",
        help: "derive `Collate` on a struct whose fields are batched one by one (`struct Frame { image: Array3<u8>, label: i64 }` gives `FrameBatch`); for an enum, collate each variant's data in its own pipeline branch",
    }
    /// A `#[collate(...)]` attribute that does not exist or is given twice.
    CollateDeriveAttribute {
        id: "collate_derive_attribute",
        message: "{problem}",
        label: "here",
        help: "on the struct, `#[collate(derive(...))]` and `#[collate(crate = \"path\")]`; on a field, one strategy: `#[collate(list)]`, `#[collate(concat)]`, `#[collate(pad)]`, `#[collate(packed)]` or a type of your own, `#[collate(with = MyStrategy)]`",
    }
        }
    };
}

macro_rules! define_rules {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident {
            id: $id:literal,
            message: $message:literal,
            label: $label:literal,
            help: $help:literal,
            $(diagnostic: {
                $(#[doc = $tdoc:literal])*
                trait $trait_name:ident $(<$param:ident>)? $({
                    $(#[doc = $adoc:literal])*
                    type $assoc:ident;
                })?
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

    };
}

rule_table!(define_rules);

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

/// A broken rule, found by the [checker](crate::check) (for the planner
/// and `Description::check`).
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
    fn render_fills_placeholders() {
        assert_eq!(
            Rule::BatchNodeInSample.render(&[("Self", "normalize")]),
            "`normalize` is not a sample node; it cannot stand under `sample:`"
        );
    }
}
