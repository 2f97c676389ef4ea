//! # adl-macros
//!
//! The procedural macros of adl, re-exported by the facade crate `adl`:
//! `#[derive(Collate)]` (batch types), `#[derive(Recycle)]` (batch memory
//! a loader reuses), `#[derive(SensorSet)]` (a recording's sensors of
//! different types), `#[transform]` (typed, named
//! pipeline nodes) and `pipeline!` (sample → collate → batch pipelines with
//! parallel branches, checked at compile time). The DSL reference, with
//! every form and every error, is `docs/dsl.md`.
//!
//! This crate holds only the entry points, in the style of serde_derive
//! (whose logic is serde_derive_internals'): each calls its macro's
//! `expand` in `adl-lang`, a normal library where the phases (parse,
//! check, generate, each a plain function on `proc_macro2` types) are
//! tested and snapshotted in-process, and where the composition rules live
//! as data beside the one checker the planner uses too. Errors are spanned
//! at the user's token and emitted as `compile_error!`. No macro reads
//! anything but its tokens.

use proc_macro::TokenStream;

use adl_lang::{collate, pipeline, recycle, sensor_set, transform};

/// Derive `adl::collate::Collatable` for a struct: `Frame` gets a
/// `FrameBatch` with one batch per field, and collates field by field.
///
/// Field attributes pick another strategy for one field:
/// - `#[collate(list)]`: keep the values in a `Vec`;
/// - `#[collate(concat)]`: concatenate arrays along their first axis;
/// - `#[collate(pad)]`: pad arrays ragged along their first axis to the
///   longest, with lengths and a mask (`adl::collate::Padded`);
/// - `#[collate(packed)]`: concatenate arrays ragged along their first axis,
///   with the `i64` offsets of each sample's rows (`adl::collate::PackedRows`);
/// - `#[collate(with = MyStrategy)]`: the program's own strategy, a type
///   that implements `adl::collate::Strategy<T>` for the field's type `T`.
///
/// Struct attributes: `#[collate(derive(Debug, Clone))]` derives those
/// traits on the batch type; `#[collate(crate = "path")]` names the `adl`
/// crate when it is re-exported under another path.
///
/// ```ignore
/// #[derive(Collate)]
/// struct Frame { image: Array3<u8>, label: i64, #[collate(list)] name: String }
/// // FrameBatch { image: Array4<u8>, label: Array1<i64>, name: Vec<String> }
/// ```
#[proc_macro_derive(Collate, attributes(collate))]
pub fn derive_collate(input: TokenStream) -> TokenStream {
    collate::expand(input.into()).into()
}

/// Derive `adl::exec::Recycle` for a batch struct of your own (one a
/// batch node or a `pipeline!` struct form returns), so that a loader
/// recycles its memory: each field whose type implements `Recycle` (arrays,
/// `Vec`s, tuples, maps, batches of `#[derive(Collate)]`) gives its buffers
/// back; other fields are dropped. `#[recycle(crate = "path")]` names the
/// `adl` crate when it is re-exported under another path.
///
/// ```ignore
/// #[derive(adl::Recycle)]
/// struct FlightBatch { imu: ImuBatch, pose: PoseBatch }
/// ```
#[proc_macro_derive(Recycle, attributes(recycle))]
pub fn derive_recycle(input: TokenStream) -> TokenStream {
    recycle::expand(input.into()).into()
}

/// Derive `adl::SensorSet` for a struct of sensors of any types, so that
/// a `Recording` of it gives typed samples: `Rig` gets a `RigSample` with
/// one field per sensor (the sensor's sample type), read at the
/// synchronized index of each sensor.
///
/// Struct attributes: `#[sensor_set(sample = Name)]` names the sample type;
/// `#[sensor_set(derive(Debug, Clone, Collate))]` derives those traits on
/// it; `#[sensor_set(attr(collate(derive(Debug))))]` puts attributes on it
/// (here: the batch of `Collate` derives `Debug`); `#[sensor_set(crate = "path")]` names the `adl` crate when it is
/// re-exported under another path. A field whose type is not a
/// `Sensor` is an error at that type. A field's collate strategy,
/// `#[collate(list | concat | pad | packed | with = Path)]` on a sensor field, is
/// passed on to its field of a sample that derives `Collate`.
///
/// ```ignore
/// #[derive(SensorSet)]
/// #[sensor_set(sample = Frame, derive(Debug, Clone, Collate))]
/// struct Rig { radar: RadarSensor, lidar: Window<LidarSensor>, imu: ImuSensor }
/// // Frame { radar: Array2<f32>, lidar: Vec<PointCloud>, imu: Array1<f32> }
/// let trace = Recording::new("run-1", Rig { radar, lidar, imu }, &Nearest::new("radar", 0.05)?)?;
/// let frame: Frame = trace.get(0)?;
/// ```
#[proc_macro_derive(SensorSet, attributes(sensor_set, collate))]
pub fn derive_sensor_set(input: TokenStream) -> TokenStream {
    sensor_set::expand(input.into()).into()
}

/// Declare a transform node: a function, or an impl block whose
/// `fn apply(&self, input: In) -> Out` is the node's body (so that a
/// configured node, such as a normalisation with its mean and std, is a
/// value).
///
/// The item stays as written. The node type (for a function, a braced
/// empty struct of the same name, `flip {}`; for an impl block, its type)
/// implements `adl::Transform<In>`, `adl::description::Node` (name, stage, input
/// and output types, kernel, doc), `adl::description::SampleNode` or
/// `adl::description::BatchNode`, and `adl::description::Takes<In>`. A node returning
/// `Result<Out, E>` is fallible: its errors become
/// `adl::Error::Transform` naming the node.
///
/// Options: `sample` (the default) or `batch`; `unsafe(opencl = "source")`
/// or `unsafe(opencl = include_str!("kernel.cl"))` (batch nodes only: the
/// kernel, with the ABI of `adl::kernel`, named like the node; the body is
/// its CPU reference; `unsafe` because nothing checks what OpenCL C reads
/// and writes, and on a CPU device it runs in this process: see
/// `adl::kernel`, "Safety"); `args(field, ...)` (fields of an impl-block node passed to
/// the kernel after the ABI's arguments);
/// `name = "..."` (default: the function's name, or the type's in
/// snake_case); `crate = "path"` when `adl` is re-exported elsewhere.
///
/// ```ignore
/// #[transform]
/// fn flip(f: Frame) -> Frame { ... }
/// flip(frame);                       // still a function
/// flip {}.apply(frame)?;             // and a node
///
/// struct Normalize { mean: f32, std: f32 }
/// // SAFETY: normalize.cl reads `input[i]`, `mean` and `std` and writes
/// // `output[i]` for its own `i < n`.
/// #[transform(batch, unsafe(opencl = include_str!("normalize.cl")), args(mean, std))]
/// impl Normalize {
///     fn apply(&self, b: Array4<f32>) -> Array4<f32> { (b - self.mean) / self.std }
/// }
/// ```
#[proc_macro_attribute]
pub fn transform(args: TokenStream, item: TokenStream) -> TokenStream {
    transform::expand(args.into(), item.into(), true).into()
}

/// `#[transform]` as the facade exports it when its `opencl` feature is
/// off: the same, except that `unsafe(opencl = ...)` is a one-line error saying
/// to enable the feature (in the manner of tokio's macros).
#[doc(hidden)]
#[proc_macro_attribute]
pub fn transform_without_opencl(args: TokenStream, item: TokenStream) -> TokenStream {
    transform::expand(args.into(), item.into(), false).into()
}

/// Build a typed pipeline from its stages, checked at compile time: see
/// `docs/dsl.md` for the whole language.
///
/// ```ignore
/// let pipe = pipeline! {
///     pre: decode,                          // transforms before the pipeline
///     sample: flip -> normalize(MEAN, STD), // sample nodes, in order
///     collate: default,                     // exactly one collate
///     batch: to_f32 -> |b: Array4<f32>| b * 2.0,
///     post: summarize,                      // transforms after the pipeline
/// };
/// let branches = pipeline! {
///     Frame {                               // one branch per field of `Frame`
///         radar: { sample: crop, collate: default },
///         lidar: { collate: default, batch: voxelize },
///     }
/// };
/// ```
///
/// A bare path (`flip`) is a `#[transform]` node; any other expression is
/// a node value (`normalize(MEAN, STD)`, `(node)`), closures are anonymous
/// nodes of the stage they stand in, `collate: default` is
/// `adl::collate::DefaultCollate`. Parallel forms route the fields of a
/// struct (`Frame { radar: { ... } }`, batches `batch.radar`) or the keys
/// of a keyed sample (`{ "radar": { ... } }`); branches nest. A first
/// entry `crate = path;` names the `adl` crate when it is re-exported or
/// renamed.
///
/// The expansion is an `adl::description::Described<P>`: it runs as the typed
/// pipeline `P` (an `adl::Pipeline`), and `.graph()` is the
/// `adl::description::Description` of its graph. Every broken composition rule
/// is a compile error at the offending token, in the words of
/// `adl::description::Rule`; all of them are reported. The macro reads its
/// tokens and nothing else: a bare name that is a plain `fn` or a local
/// variable is rustc's own error at that name (`docs/dsl.md`, "A bare name
/// that is not a node", says the fix).
#[proc_macro]
pub fn pipeline(input: TokenStream) -> TokenStream {
    pipeline::expand(input.into()).into()
}
