//! [`ValuePipeline`]: a pipeline composed at run time, under the keys of
//! the sample its nodes transform: each key's sample nodes, a collate that
//! stacks every array of the samples into one of a batch axis (its memory
//! from the loader's pool), each key's batch nodes. A node is one of
//! adl's [`Step`]s or any transform of [`Value`]s (a Python callable, in
//! the bindings).

use std::sync::Arc;

use adl_core::description::{Body, Description, NodeInfo, Stage};
use adl_core::pipeline::Tagged;
use adl_core::{Error, Result, Transform};
use adl_exec::{Context, NodeId, Sequential};

use crate::stack::stack;
use crate::step::Step;
use crate::value::{Path, Value};

/// A transform of values that is not one of adl's steps (a Python
/// callable, in the bindings).
pub type Other = Arc<dyn Transform<Value, Output = Value> + Send + Sync>;

/// What a node of a [`ValuePipeline`] does.
#[derive(Clone)]
pub enum Node {
    /// One of adl's transforms, in Rust.
    Step(Step),
    /// Another transform of values.
    Other(Other),
}

/// A node on the value at `path`.
struct NodeOp {
    node: Node,
    path: Path,
}

impl Transform<Value> for NodeOp {
    type Output = Value;

    fn apply(&self, input: Value) -> Result<Value> {
        self.apply_in(&Sequential::new(), input)
    }

    fn apply_in(&self, cx: &dyn Context, input: Value) -> Result<Value> {
        match &self.node {
            Node::Step(step) => step.apply(cx, input, &self.path),
            Node::Other(other) => other.apply_in(cx, input),
        }
    }
}

/// The nodes of one key of the sample: its sample nodes, its collate, its
/// batch nodes, each tagged with its node id (its place in the
/// pipeline's description).
struct Branch {
    path: Path,
    sample: Vec<Tagged<NodeOp>>,
    collate: NodeId,
    batch: Vec<Tagged<NodeOp>>,
}

/// A stage's nodes under one key of the sample, in order, each with its
/// description.
pub type Keyed = (Path, Vec<(NodeInfo, Node)>);

/// A pipeline composed at run time, under the keys of the sample its
/// nodes transform: each key's sample nodes, a collate that stacks every
/// array of the samples into one of a batch axis (its memory from the
/// loader's pool), each key's batch nodes. Cheap to clone: shared.
#[derive(Clone)]
pub struct ValuePipeline(Arc<Inner>);

struct Inner {
    branches: Vec<Branch>,
    description: Description,
    /// Whether every node is one of adl's steps.
    native: bool,
}

impl ValuePipeline {
    /// The pipeline of `sample` and `batch` nodes, each under a key of the
    /// sample (a branch per key, in the order they are first named). A
    /// key inside another (`imu` and `imu/acc`), or nodes that break adl's
    /// composition rules, are an error saying which.
    pub fn new(mut sample: Vec<Keyed>, mut batch: Vec<Keyed>) -> Result<ValuePipeline> {
        let mut paths: Vec<Path> = Vec::new();
        for (path, _) in sample.iter().chain(&batch) {
            if !paths.contains(path) {
                paths.push(path.clone());
            }
        }
        for (i, a) in paths.iter().enumerate() {
            for b in &paths[i + 1..] {
                let (short, long) = match a.keys().len() <= b.keys().len() {
                    true => (a, b),
                    false => (b, a),
                };
                if long.keys().starts_with(short.keys()) {
                    return Err(Error::invalid(
                        "the pipeline's keys",
                        format!(
                            "it transforms {short} and {long}, which is inside it: list the transforms under one of them"
                        ),
                    ));
                }
            }
        }
        let take = |stage: &mut Vec<Keyed>, path: &Path| {
            (stage.iter().position(|(p, _)| p == path))
                .map(|at| stage.remove(at).1)
                .unwrap_or_default()
        };
        let mut described = Vec::new();
        let mut branches = Vec::new();
        let mut next = 0u32;
        let mut native = true;
        for path in paths {
            let name = path
                .keys()
                .iter()
                .map(|k| &**k)
                .collect::<Vec<_>>()
                .join("/");
            let sample_nodes = take(&mut sample, &path);
            let batch_nodes = take(&mut batch, &path);
            let infos = |nodes: &[(NodeInfo, Node)]| nodes.iter().map(|(i, _)| i.clone()).collect();
            described.push((
                name,
                Description::new(Body::stages(
                    infos(&sample_nodes),
                    vec![stack_node()],
                    infos(&batch_nodes),
                )),
            ));
            native &= (sample_nodes.iter().chain(&batch_nodes))
                .all(|(_, node)| matches!(node, Node::Step(_)));
            let sample = tagged(sample_nodes, &path, &mut next);
            let collate = NodeId(next);
            next += 1;
            let batch = tagged(batch_nodes, &path, &mut next);
            branches.push(Branch {
                path,
                sample,
                collate,
                batch,
            });
        }
        let description = match described.is_empty() {
            true => Description::new(Body::stages(
                Vec::new(),
                vec![NodeInfo::new("stack", Stage::Collate)],
                Vec::new(),
            )),
            false => Description::new(Body::parallel(described)),
        };
        let violations = description.check();
        if !violations.is_empty() {
            return Err(Error::invalid(
                "the pipeline",
                format!(
                    "it breaks adl's composition rules:\n{}",
                    (violations.iter())
                        .map(|v| format!("  {v}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                ),
            ));
        }
        Ok(ValuePipeline(Arc::new(Inner {
            branches,
            description,
            native,
        })))
    }

    /// Whether every node is one of adl's steps (none is another
    /// transform: in the bindings, none takes the GIL).
    pub fn is_native(&self) -> bool {
        self.0.native
    }

    /// Each branch: its key (`imu/acc`), its sample nodes' names and its
    /// batch nodes', in order.
    pub fn branches(&self) -> Vec<(String, Vec<String>, Vec<String>)> {
        let names = |nodes: &[Tagged<NodeOp>]| nodes.iter().map(|n| n.name().to_owned()).collect();
        (self.0.branches.iter())
            .map(|b| {
                let key = b.path.keys().iter().map(|k| &**k).collect::<Vec<_>>();
                (key.join("/"), names(&b.sample), names(&b.batch))
            })
            .collect()
    }

    /// Take the value at `path` out of `value` (a sample or a batch), or
    /// say what is there instead.
    fn take(value: &mut Value, path: &Path) -> Result<Value> {
        let missing = |at: &Value, key: &str| {
            Error::invalid(
                format_args!("the pipeline's key {path}"),
                format!("there is no `{key}` in {}", at.kind()),
            )
        };
        let keys = path.keys();
        let mut at = value;
        for key in &keys[..keys.len().saturating_sub(1)] {
            let Value::Map(items) = at else {
                return Err(missing(at, key));
            };
            match items.iter().position(|(k, _)| k == key) {
                Some(i) => at = &mut items[i].1,
                None => return Err(missing(&Value::Map(items.clone()), key)),
            }
        }
        let last = keys.last().map_or("", |k| &**k);
        let kind = at.kind();
        at.take(last).ok_or_else(|| {
            Error::invalid(
                format_args!("the pipeline's key {path}"),
                format!("there is no `{last}` in {kind}"),
            )
        })
    }

    /// Put `value` back at `path` (where [`ValuePipeline::take`] took it).
    fn put(into: &mut Value, path: &Path, value: Value) {
        let keys = path.keys();
        let mut at = into;
        for key in &keys[..keys.len().saturating_sub(1)] {
            let Value::Map(items) = at else {
                return;
            };
            match items.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => at = &mut slot.1,
                None => return,
            }
        }
        if let Some(last) = keys.last() {
            at.put(last, value);
        }
    }

    /// Run `nodes` on the value at each branch's path of `value`.
    fn run(
        &self,
        cx: &dyn Context,
        mut value: Value,
        nodes: impl Fn(&Branch) -> &[Tagged<NodeOp>],
    ) -> Result<Value> {
        for branch in &self.0.branches {
            let nodes = nodes(branch);
            if nodes.is_empty() {
                continue;
            }
            let mut taken = Self::take(&mut value, &branch.path)?;
            for node in nodes {
                taken = node.apply_in(cx, taken)?;
            }
            Self::put(&mut value, &branch.path, taken);
        }
        Ok(value)
    }
}

/// The collate's node: every array stacked.
fn stack_node() -> NodeInfo {
    NodeInfo::new("stack", Stage::Collate).with_doc(
        "Every array of the samples stacked along a new first axis (adl.Pipeline's collate).",
    )
}

/// `nodes` on the value at `path`, each tagged with its node id, from
/// `next` on.
fn tagged(nodes: Vec<(NodeInfo, Node)>, path: &Path, next: &mut u32) -> Vec<Tagged<NodeOp>> {
    (nodes.into_iter())
        .map(|(info, node)| {
            *next += 1;
            let op = NodeOp {
                node,
                path: path.clone(),
            };
            Tagged::new(NodeId(*next - 1), info.name, op)
        })
        .collect()
}

impl adl_core::Pipeline<Value> for ValuePipeline {
    type Transformed = Value;
    type Collated = Value;
    type Processed = Value;

    fn sample(&self, raw: Value) -> Result<Value> {
        self.sample_in(&Sequential::new(), raw)
    }

    fn collate(&self, samples: Vec<Value>) -> Result<Value> {
        self.collate_in(&Sequential::new(), samples)
    }

    fn batch(&self, collated: Value) -> Result<Value> {
        self.batch_in(&Sequential::new(), collated)
    }

    fn sample_in(&self, cx: &dyn Context, raw: Value) -> Result<Value> {
        self.run(cx, raw, |branch| &branch.sample)
    }

    /// Each branch's values stacked apart (timed as its collate node),
    /// then the rest of the samples.
    fn collate_in(&self, cx: &dyn Context, mut samples: Vec<Value>) -> Result<Value> {
        let buffers = cx.buffers();
        let mut stacked = Vec::with_capacity(self.0.branches.len());
        for branch in &self.0.branches {
            let mut column = Vec::with_capacity(samples.len());
            for (position, sample) in samples.iter_mut().enumerate() {
                column.push(
                    Self::take(sample, &branch.path)
                        .map_err(|e| Error::collate(position, e.to_string()))?,
                );
            }
            let entered = cx.enter(branch.collate);
            let batch = stack(column, buffers);
            cx.leave(branch.collate, entered);
            let within = (branch.path.keys().iter())
                .map(|k| format!("[{k:?}]"))
                .collect::<String>();
            stacked.push(batch.map_err(|e| e.within(within))?);
        }
        let mut batch = stack(samples, buffers)?;
        for (branch, value) in self.0.branches.iter().zip(stacked) {
            Self::put(&mut batch, &branch.path, value);
        }
        Ok(batch)
    }

    fn batch_in(&self, cx: &dyn Context, collated: Value) -> Result<Value> {
        self.run(cx, collated, |branch| &branch.batch)
    }

    fn description(&self) -> Option<&Description> {
        Some(&self.0.description)
    }
}
