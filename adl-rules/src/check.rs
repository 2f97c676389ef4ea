//! The one checker of the composition rules, for the three places that
//! check them: `pipeline!` (errors at the user's tokens), a pipeline's
//! `Description::check` and the planner's walk of its graph (errors at a
//! node path such as `pipeline/radar/flip`). Each builds what it knows of
//! a pipeline as [`Level`]s of [`Step`]s (or a path of steps) and gets
//! back [`Finding`]s located by its own [`Place`].
//!
//! What is checked, on every path from the source to the sink: exactly one
//! collate ([`Rule::CollateOnce`], [`Rule::MissingCollate`]); every node
//! whose stage is known standing where it may ([`PLACEMENT`]); the stages
//! in order ([`MAY_FOLLOW`]); neighbours whose types are both known
//! agreeing ([`Rule::TypeMismatch`]; not across a split or a merge). On the
//! branches of a parallel form: at least one ([`Rule::NoBranches`]), no
//! name twice ([`Rule::DuplicateBranch`]).

use std::collections::HashSet;

use crate::{Rule, Stage, Violation};

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

/// The stages a path may end with: it must have collated.
pub const MAY_END: &[Stage] = &[Stage::Collate, Stage::Batch];

/// The rule a node of stage `is` breaks by standing in `stands_in`, if any
/// (see [`PLACEMENT`]).
pub fn placement(is: Stage, stands_in: Stage) -> Option<Rule> {
    PLACEMENT
        .iter()
        .find(|(i, s, _)| *i == is && *s == stands_in)
        .map(|(_, _, rule)| *rule)
}

/// Whether `next` may follow `previous` (`None`: the source) on a path.
pub fn may_follow(previous: Option<Stage>, next: Stage) -> bool {
    MAY_FOLLOW.contains(&(previous, next))
}

/// Where a finding points, for one of the checker's users: a node path
/// (`String`, for the planner and `Description::check`) or, in `adl-lang`,
/// a token of the macro's input.
pub trait Place: Clone {
    /// Where the node `name`, written at `site`, is on the path at `self`.
    fn node(&self, name: &str, site: &Self) -> Self;
    /// Where the branch `name`, written at `site`, is under `self`.
    fn branch(&self, name: &str, site: &Self) -> Self;
    /// Where a parallel form written at `site` is, at `self`.
    fn form(&self, site: &Self) -> Self;
    /// Whether a finding at `self` repeats one at `other` with the same
    /// rule and message; `same_source` says whether both are about the
    /// same step (or neither about one).
    fn repeats(&self, other: &Self, same_source: bool) -> bool;
    /// The path at `self` in a message (`branches`: the names from the
    /// root): "`pipeline/radar`", "branch `radar`", "this pipeline".
    fn path_text(&self, branches: &[String]) -> String;
}

/// A node path, `pipeline/radar/flip`.
impl Place for String {
    /// The node's own path where its step gives one (a `pre:` node of a
    /// parallel body stands at the root, not in each branch), else
    /// `self/name`.
    fn node(&self, name: &str, site: &Self) -> Self {
        if site.is_empty() {
            format!("{self}/{name}")
        } else {
            site.clone()
        }
    }
    fn branch(&self, name: &str, _site: &Self) -> Self {
        format!("{self}/{name}")
    }
    fn form(&self, _site: &Self) -> Self {
        self.clone()
    }
    /// One finding per path and message.
    fn repeats(&self, other: &Self, _same_source: bool) -> bool {
        self == other
    }
    fn path_text(&self, _branches: &[String]) -> String {
        format!("`{self}`")
    }
}

/// A type as the checker compares and names it (`()` where types are not
/// known, as in the macro, which leaves them to rustc).
pub trait TypeKey {
    /// Whether two types are the same.
    fn same(&self, other: &Self) -> bool;
    /// The type as a message names it.
    fn short_name(&self) -> String;
}

impl TypeKey for () {
    fn same(&self, _other: &Self) -> bool {
        true
    }
    fn short_name(&self) -> String {
        String::new()
    }
}

/// What the checker knows of one node.
#[derive(Debug, Clone)]
pub struct Step<L, T> {
    /// The node's name.
    pub name: String,
    /// The stage the node is declared with, where known.
    pub is: Option<Stage>,
    /// The stage it stands in (where it is written).
    pub stands_in: Stage,
    /// The type it takes, where known.
    pub input: Option<T>,
    /// The type it gives, where known.
    pub output: Option<T>,
    /// Where it is written (see [`Place::node`]).
    pub site: L,
}

/// One level of a pipeline: `pre:`, `sample:`, its collates or parallel
/// forms, `batch:`, `post:`.
#[derive(Debug, Clone)]
pub struct Level<L, T> {
    /// Nodes under `pre:` (they stand in the sample stage).
    pub pre: Vec<Step<L, T>>,
    /// Nodes under `sample:`.
    pub sample: Vec<Step<L, T>>,
    /// What collates, in the order written: exactly one is right.
    pub cores: Vec<Core<L, T>>,
    /// Nodes under `batch:`.
    pub batch: Vec<Step<L, T>>,
    /// Nodes under `post:` (they stand in the batch stage).
    pub post: Vec<Step<L, T>>,
    /// A collate was meant but is already an error of its own (an empty
    /// `collate:`): no missing collate is reported.
    pub collate_reported: bool,
}

impl<L, T> Default for Level<L, T> {
    fn default() -> Self {
        Level {
            pre: Vec::new(),
            sample: Vec::new(),
            cores: Vec::new(),
            batch: Vec::new(),
            post: Vec::new(),
            collate_reported: false,
        }
    }
}

/// What collates at a level.
#[derive(Debug, Clone)]
pub enum Core<L, T> {
    /// A collate node.
    Collate(Step<L, T>),
    /// A parallel form: each branch collates.
    Parallel {
        /// How messages name the form (`Frame { .. }`).
        name: String,
        /// Where it is written.
        site: L,
        /// Where its branches are written: no branch points there.
        body: L,
        /// Its branches.
        branches: Vec<Branch<L, T>>,
    },
}

impl<L, T> Core<L, T> {
    fn name(&self) -> &str {
        match self {
            Core::Collate(step) => &step.name,
            Core::Parallel { name, .. } => name,
        }
    }

    fn site(&self) -> &L {
        match self {
            Core::Collate(step) => &step.site,
            Core::Parallel { site, .. } => site,
        }
    }
}

/// One branch of a parallel form.
#[derive(Debug, Clone)]
pub struct Branch<L, T> {
    /// The field or key it takes (`None`: not written, already an error).
    pub name: Option<String>,
    /// Where its name (or, without one, its body) is written.
    pub site: L,
    /// Where its body is written: a missing collate points there.
    pub body: L,
    /// Its pipeline.
    pub level: Level<L, T>,
}

/// A broken rule, where, and its rendered message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding<L> {
    /// The rule.
    pub rule: Rule,
    /// Where.
    pub at: L,
    /// The rule's message, filled in.
    pub message: String,
}

/// A step on a path, with the segment it is in (types are compared only
/// within one: not across a split or a merge).
type OnPath<'a, L, T> = (&'a Step<L, T>, usize);

/// Every rule `level` breaks; `at` is where the whole pipeline is (the
/// root of node paths, or the macro call).
pub fn check_level<L: Place, T: TypeKey>(level: &Level<L, T>, at: &L) -> Vec<Finding<L>> {
    let mut walk = Walk {
        found: Vec::new(),
        sources: Vec::new(),
        segments: 0,
    };
    walk.level(level, at, &[], &[], &[]);
    walk.found
}

struct Walk<L> {
    found: Vec<Finding<L>>,
    /// The step each finding is about, where it is about one.
    sources: Vec<Option<*const ()>>,
    segments: usize,
}

impl<L: Place> Walk<L> {
    /// Record the findings of one path. A node before a split stands on
    /// every branch's path: where its place is the same on each (a token,
    /// or a path shared by branches of one name), it is reported once.
    fn path<T: TypeKey>(
        &mut self,
        at: &L,
        names: &[String],
        path: &[OnPath<'_, L, T>],
        reported: bool,
    ) {
        for (finding, source) in findings(at, names, path, reported) {
            let repeated = self.found.iter().zip(&self.sources).any(|(f, s)| {
                f.rule == finding.rule
                    && f.message == finding.message
                    && f.at.repeats(&finding.at, *s == source)
            });
            if !repeated {
                self.found.push(finding);
                self.sources.push(source);
            }
        }
    }

    fn push(&mut self, finding: Finding<L>) {
        self.found.push(finding);
        self.sources.push(None);
    }
}

impl<L: Place> Walk<L> {
    fn level<'a, T: TypeKey>(
        &mut self,
        level: &'a Level<L, T>,
        at: &L,
        names: &[String],
        prefix: &[OnPath<'a, L, T>],
        suffix: &[OnPath<'a, L, T>],
    ) {
        let segment = self.segments;
        self.segments += 1;
        let on = |steps: &'a [Step<L, T>], segment: usize| steps.iter().map(move |s| (s, segment));
        // Collates at one level all stand on its path (the second is a
        // `collate_once` there, as on the planner's graph); a parallel form
        // beside a collate, or a second form, is a `collate_once` of its
        // own, and the paths go through the first.
        let first = level.cores.first();
        let parallel_first = matches!(first, Some(Core::Parallel { .. }));
        if let Some(first) = first {
            for extra in &level.cores[1..] {
                if parallel_first || matches!(extra, Core::Parallel { .. }) {
                    self.push(Finding {
                        rule: Rule::CollateOnce,
                        at: at.node(extra.name(), extra.site()),
                        message: Rule::CollateOnce
                            .render(&[("first", first.name()), ("second", extra.name())]),
                    });
                }
            }
        }
        match first {
            None | Some(Core::Collate(_)) => {
                let collates = level.cores.iter().filter_map(|core| match core {
                    Core::Collate(step) => Some((step, segment)),
                    Core::Parallel { .. } => None,
                });
                let path: Vec<OnPath<'a, L, T>> = prefix
                    .iter()
                    .copied()
                    .chain(on(&level.pre, segment))
                    .chain(on(&level.sample, segment))
                    .chain(collates)
                    .chain(on(&level.batch, segment))
                    .chain(on(&level.post, segment))
                    .chain(suffix.iter().copied())
                    .collect();
                self.path(at, names, &path, level.collate_reported);
            }
            Some(Core::Parallel { body, branches, .. }) => {
                self.parallel(level, segment, body, branches, at, names, prefix, suffix);
            }
        }
        // A parallel form that is not the first core is a `collate_once`
        // (above), and its branches still have rules of their own.
        for extra in level.cores.iter().skip(1) {
            if let Core::Parallel { body, branches, .. } = extra {
                self.parallel(level, segment, body, branches, at, names, prefix, suffix);
            }
        }
    }

    /// The paths through the branches of a parallel form of `level`.
    #[allow(clippy::too_many_arguments)]
    fn parallel<'a, T: TypeKey>(
        &mut self,
        level: &'a Level<L, T>,
        segment: usize,
        body: &L,
        branches: &'a [Branch<L, T>],
        at: &L,
        names: &[String],
        prefix: &[OnPath<'a, L, T>],
        suffix: &[OnPath<'a, L, T>],
    ) {
        let on = |steps: &'a [Step<L, T>], segment: usize| steps.iter().map(move |s| (s, segment));
        if branches.is_empty() {
            self.push(Finding {
                rule: Rule::NoBranches,
                at: at.form(body),
                message: Rule::NoBranches.render(&[]),
            });
            // No branch, no path through the form: the nodes around it are
            // still checked, on a path of their own (whose collate is the
            // form's, already an error).
            let path: Vec<OnPath<'a, L, T>> = prefix
                .iter()
                .copied()
                .chain(on(&level.pre, segment))
                .chain(on(&level.sample, segment))
                .chain(on(&level.batch, segment))
                .chain(on(&level.post, segment))
                .chain(suffix.iter().copied())
                .collect();
            self.path(at, names, &path, true);
        }
        let inner_prefix: Vec<OnPath<'a, L, T>> = prefix
            .iter()
            .copied()
            .chain(on(&level.pre, segment))
            .chain(on(&level.sample, segment))
            .collect();
        // After the merge: a segment of its own.
        let merged = self.segments;
        self.segments += 1;
        let inner_suffix: Vec<OnPath<'a, L, T>> = on(&level.batch, merged)
            .chain(on(&level.post, merged))
            .chain(suffix.iter().copied())
            .collect();
        let mut seen = HashSet::new();
        for branch in branches {
            let (here, inner_names) = match &branch.name {
                Some(name) => {
                    if !seen.insert(name.as_str()) {
                        self.push(Finding {
                            rule: Rule::DuplicateBranch,
                            at: at.branch(name, &branch.site),
                            message: Rule::DuplicateBranch.render(&[("name", name)]),
                        });
                    }
                    let mut inner = names.to_vec();
                    inner.push(name.clone());
                    (at.branch(name, &branch.body), inner)
                }
                None => (at.branch("", &branch.body), names.to_vec()),
            };
            self.level(
                &branch.level,
                &here,
                &inner_names,
                &inner_prefix,
                &inner_suffix,
            );
        }
    }
}

/// Every rule one path breaks: `at` is the path (named by `names`, the
/// branches from the root), `path` its nodes from the source to the sink
/// with their segments. With `collate_reported`, a path without a collate
/// is not reported (its collate is already an error of its own).
pub fn check_steps<L: Place, T: TypeKey>(
    at: &L,
    names: &[String],
    path: &[(&Step<L, T>, usize)],
    collate_reported: bool,
) -> Vec<Finding<L>> {
    findings(at, names, path, collate_reported)
        .into_iter()
        .map(|(finding, _)| finding)
        .collect()
}

/// [`check_steps`], each finding with the step it is about (its address),
/// where it is about one.
#[allow(clippy::type_complexity)]
fn findings<L: Place, T: TypeKey>(
    at: &L,
    names: &[String],
    path: &[(&Step<L, T>, usize)],
    collate_reported: bool,
) -> Vec<(Finding<L>, Option<*const ()>)> {
    let source = |step: &Step<L, T>| Some(std::ptr::from_ref(step).cast::<()>());
    let mut found = Vec::new();
    let node_at = |step: &Step<L, T>| at.node(&step.name, &step.site);
    // Every node whose stage is known, standing where it may.
    for (step, _) in path {
        if let Some(rule) = step.is.and_then(|is| placement(is, step.stands_in)) {
            let given = step
                .input
                .as_ref()
                .map(TypeKey::short_name)
                .unwrap_or_else(|| "the samples".to_owned());
            found.push((
                Finding {
                    rule,
                    at: node_at(step),
                    message: rule.render(&[("Self", &step.name), ("T", &given)]),
                },
                source(step),
            ));
        }
    }
    // The stages in order, one collate.
    let mut state: Option<Stage> = None;
    let mut collate: Option<&str> = None;
    let collates = path.iter().any(|(s, _)| s.stands_in == Stage::Collate);
    for (step, _) in path {
        let stage = step.stands_in;
        // A batch node on a path that never collates is that path's
        // missing collate, reported once below, not a misplaced node.
        let uncollated_batch = stage == Stage::Batch && !collates;
        if !may_follow(state, stage) && !uncollated_batch {
            let (rule, args) = match (stage, collate) {
                (Stage::Collate, Some(first)) => (
                    Rule::CollateOnce,
                    vec![("first", first), ("second", step.name.as_str())],
                ),
                (Stage::Sample, Some(_)) => (Rule::SampleNodeInBatch, vec![("Self", &*step.name)]),
                _ => (Rule::BatchNodeInSample, vec![("Self", &*step.name)]),
            };
            found.push((
                Finding {
                    rule,
                    at: node_at(step),
                    message: rule.render(&args),
                },
                source(step),
            ));
        }
        if stage == Stage::Collate && collate.is_none() {
            collate = Some(&step.name);
        }
        // Keep walking from where the path should be, so that one
        // misplaced node gives one finding.
        state = Some(match (stage, collate.is_some()) {
            (Stage::Sample, true) => Stage::Batch,
            (Stage::Batch, false) => Stage::Sample,
            (s, _) => s,
        });
    }
    if collate.is_none() && !collate_reported {
        found.push((
            Finding {
                rule: Rule::MissingCollate,
                at: at.clone(),
                message: Rule::MissingCollate.render(&[("path", &at.path_text(names))]),
            },
            None,
        ));
    }
    // Neighbours' types, within a segment.
    for pair in path.windows(2) {
        let ((before, s0), (after, s1)) = (pair[0], pair[1]);
        if s0 != s1 {
            continue;
        }
        if let (Some(out), Some(input)) = (&before.output, &after.input)
            && !out.same(input)
        {
            found.push((
                Finding {
                    rule: Rule::TypeMismatch,
                    at: node_at(after),
                    message: Rule::TypeMismatch
                        .render(&[("Self", &after.name), ("T", &out.short_name())]),
                },
                source(after),
            ));
        }
    }
    found
}

/// Check one path from source to sink given as `(name, stage it stands
/// in)` pairs, `at` naming the path: the stage order and one collate
/// ([`check_steps`] without stages or types known).
///
/// ```
/// use adl_rules::{Rule, Stage, check::check_path};
///
/// let ok = check_path("pipe", &[("flip", Stage::Sample), ("default", Stage::Collate)]);
/// assert!(ok.is_empty());
/// let twice = check_path("pipe", &[("a", Stage::Collate), ("b", Stage::Collate)]);
/// assert_eq!(twice[0].rule, Rule::CollateOnce);
/// assert_eq!(twice[0].at, "pipe/b");
/// ```
pub fn check_path(at: &str, nodes: &[(&str, Stage)]) -> Vec<Violation> {
    let steps: Vec<Step<String, ()>> = nodes
        .iter()
        .map(|&(name, stands_in)| Step {
            name: name.to_owned(),
            is: None,
            stands_in,
            input: None,
            output: None,
            site: String::new(),
        })
        .collect();
    let path: Vec<(&Step<String, ()>, usize)> = steps.iter().map(|s| (s, 0)).collect();
    check_steps(&at.to_owned(), &[], &path, false)
        .into_iter()
        .map(Violation::from)
        .collect()
}

impl From<Finding<String>> for Violation {
    fn from(finding: Finding<String>) -> Self {
        Violation {
            rule: finding.rule,
            at: finding.at,
            message: finding.message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            v[0].to_string(),
            "p/d: a pipeline collates exactly once: `d` would collate again after `c` [collate_once]"
        );
    }

    /// A type known by name.
    #[derive(Debug, Clone)]
    struct Ty(&'static str);

    impl TypeKey for Ty {
        fn same(&self, other: &Self) -> bool {
            self.0 == other.0
        }
        fn short_name(&self) -> String {
            self.0.to_owned()
        }
    }

    fn step(name: &str, is: Stage, stands_in: Stage) -> Step<String, Ty> {
        Step {
            name: name.to_owned(),
            is: Some(is),
            stands_in,
            input: None,
            output: None,
            site: String::new(),
        }
    }

    fn rules(level: &Level<String, Ty>) -> Vec<(Rule, String)> {
        check_level(level, &"pipeline".to_owned())
            .into_iter()
            .map(|f| (f.rule, f.at))
            .collect()
    }

    #[test]
    fn one_collate_per_path() {
        use Stage::*;
        let mut level = Level::default();
        assert_eq!(
            rules(&level),
            vec![(Rule::MissingCollate, "pipeline".to_owned())]
        );
        level.cores.push(Core::Collate(step("c", Collate, Collate)));
        assert!(rules(&level).is_empty());
        level.cores.push(Core::Collate(step("d", Collate, Collate)));
        let found = check_level(&level, &"pipeline".to_owned());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].at, "pipeline/d");
        assert_eq!(
            found[0].message,
            "a pipeline collates exactly once: `d` would collate again after `c`"
        );
        level.cores.truncate(0);
        level.collate_reported = true;
        assert!(rules(&level).is_empty());
    }

    #[test]
    fn nodes_stand_where_they_may_and_types_agree_within_a_segment() {
        use Stage::*;
        let mut flip = step("flip", Sample, Batch);
        flip.input = Some(Ty("Frame"));
        let mut a = step("a", Sample, Sample);
        a.output = Some(Ty("u8"));
        let mut b = step("b", Sample, Sample);
        b.input = Some(Ty("u16"));
        let level = Level {
            sample: vec![a, b],
            cores: vec![Core::Collate(step("c", Collate, Collate))],
            batch: vec![flip],
            ..Level::default()
        };
        let found = check_level(&level, &"p".to_owned());
        let got: Vec<(Rule, &str)> = found.iter().map(|f| (f.rule, f.at.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (Rule::SampleNodeInBatch, "p/flip"),
                (Rule::TypeMismatch, "p/b")
            ]
        );
        assert_eq!(
            found[1].message,
            "type mismatch: `b` does not take `u8`, which the node before it gives"
        );
    }

    #[test]
    fn branches_each_collate_and_have_distinct_names() {
        use Stage::*;
        let branch = |name: &str, collates: bool| Branch {
            name: Some(name.to_owned()),
            site: String::new(),
            body: String::new(),
            level: Level {
                cores: if collates {
                    vec![Core::Collate(step("c", Collate, Collate))]
                } else {
                    vec![]
                },
                ..Level::default()
            },
        };
        let level = |branches| Level {
            cores: vec![Core::Parallel {
                name: "Frame { .. }".to_owned(),
                site: String::new(),
                body: String::new(),
                branches,
            }],
            // After the merge: in the batch stage on every branch's path.
            post: vec![step("flip", Sample, Batch)],
            ..Level::default()
        };
        let got = rules(&level(vec![
            branch("radar", true),
            branch("lidar", false),
            branch("radar", true),
        ]));
        assert_eq!(
            got,
            vec![
                (Rule::SampleNodeInBatch, "pipeline/radar/flip".to_owned()),
                (Rule::SampleNodeInBatch, "pipeline/lidar/flip".to_owned()),
                (Rule::MissingCollate, "pipeline/lidar".to_owned()),
                (Rule::DuplicateBranch, "pipeline/radar".to_owned()),
            ]
        );
        // Without branches, the nodes around the form are still checked.
        assert_eq!(
            rules(&level(vec![])),
            vec![
                (Rule::NoBranches, "pipeline".to_owned()),
                (Rule::SampleNodeInBatch, "pipeline/flip".to_owned()),
            ]
        );
    }
}
