//! [`OnError`]: what a loader, or a [`FlatMap`](crate::pipes::FlatMap),
//! does with a sample or item that failed.

/// What happens to a sample (or a [`FlatMap`](crate::pipes::FlatMap)'s
/// source item) whose reading or transformation fails. One policy for the
/// loader and the data pipes; never silent.
///
/// ```
/// use adl::prelude::*;
/// use adl::InMemory;
///
/// let dataset: InMemory<f32> = (0..4).map(|i| i as f32).collect();
/// let pipeline = Stages::new()
///     .with_sample(adl::transform::fallible(|x: f32| {
///         if x == 2.0 { Err(adl::BoxError::from("two is bad")) } else { Ok(x) }
///     }))
///     .with_collate(DefaultCollate);
/// let loader = Loader::new(dataset, pipeline)
///     .batch_size(4)
///     .workers(0)
///     .on_error(OnError::Skip)
///     .build()?;
/// let mut epoch = loader.epoch(0);
/// assert_eq!(epoch.next().unwrap()?.to_vec(), [0.0, 1.0, 3.0]);
/// assert_eq!(epoch.skipped()[0].index, 2);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// The failure is an error: a loader ends the epoch with it, after
    /// delivering every earlier batch (the first error in delivery order,
    /// whatever the worker count); a `FlatMap` yields it as an `Err` item
    /// and goes on with the next source item. The default.
    #[default]
    Fail,
    /// Leave it out, and say so: a loader leaves the sample out of its
    /// batch (a failing collate or batch stage, the whole batch) and lists
    /// it in its epoch's `skipped()` with the node and the reason; a
    /// `FlatMap` yields nothing for the item, counts it (`skipped()`) and
    /// logs a warning with its index and message through the `log` facade.
    Skip,
}
