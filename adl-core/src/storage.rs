//! [`Storage`]: the engine's side of a dataset or a sensor, apart from
//! the specification's traits: where each sample is stored (its
//! [`origin`](Storage::origin)), and what can be done before its `get`
//! (a cache hint, or reads ahead of it: see [`Ahead`]). A read ahead is a
//! value, [`Fetched`], that the loader hands to the sample's
//! `get_fetched`: nothing is kept in the storage between the two.
//!
//! A [`Dataset`] or a [`Sensor`](crate::Sensor) gives its
//! [`Storage`] through one method, `storage()` (`None`, the default: it
//! knows no more of its samples than their indices). A loader asks it
//! once, and where the storage reads ahead it runs a read stage (many reads
//! in flight, bounded in bytes) ahead of its sample stage; where it takes
//! hints, the loader gives them a few samples ahead. Errors name a failed
//! sample's origin, and a pipeline's drawing shows its sources.
//!
//! A wrapper (a pipe, a mapped sensor, a concatenation) forwards it one of
//! two ways: where its sample `i` is its source's sample `i`, `storage()`
//! is its source's; otherwise it implements [`Route`], saying which source
//! samples sample `i` is made of (one, for a shuffle, a skip, a
//! concatenation; several, for a batch, a window, a pair), and every hook
//! follows from that; its `get_fetched` hands the read to its source's as
//! its `get` hands the index (the whole read to one source sample, a
//! [part](Fetched::split) to each of several). A
//! [`Recording`](crate::Recording) alone is stored its own way: a part per
//! sensor, named by the sensor. A wrapper that did none of these would lose
//! its source's origins, hints and reads silently, which this module's
//! tests check wrapper by wrapper.
//!
//! [`Origin::of`](Origin::of) and
//! [`SensorOrigin::of`](crate::SensorOrigin::of) read an origin through
//! it, with the defaults where there is no storage.

pub use crate::fetched::{Fetched, Read};
use crate::{Dataset, Origin, Result};

/// What a [`Storage`] does ahead of a sample's `get`, from least to most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Ahead {
    /// Nothing: each `get` does all of its work.
    #[default]
    Nothing,
    /// Hints: [`prefetch`](Storage::prefetch) tells a dataset in memory a
    /// sample is read soon (it can ask the CPU to start loading it, see
    /// [`exec::prefetch`](adl_exec::prefetch)); a loader gives them a
    /// few samples ahead, on the thread that then reads them.
    Hints,
    /// Reads: [`fetch`](Storage::fetch) does a sample's I/O (from a disk,
    /// a store) and gives its bytes as a [`Fetched`] for the sample's
    /// `get_fetched`; a loader runs a read stage of its own for them.
    Reads,
}

impl Ahead {
    /// What `storage` does ahead: [`Ahead::Nothing`] where there is none.
    pub fn of<O>(storage: Option<&dyn Storage<Origin = O>>) -> Ahead {
        storage.map_or(Ahead::Nothing, |s| s.ahead())
    }
}

/// The engine's side of a dataset's or a sensor's samples: where each is
/// stored, and what can be done before its `get`. `Origin` is
/// [`Origin`] for a dataset and
/// [`SensorOrigin`](crate::SensorOrigin) for a sensor. Every method has a
/// default (nothing known, nothing ahead), so a storage says only what it
/// has.
pub trait Storage {
    /// What [`origin`](Storage::origin) gives: [`Origin`]
    /// or [`SensorOrigin`](crate::SensorOrigin).
    type Origin;

    /// Where sample `index` is stored (its trace, each sensor's file and
    /// row), where the storage knows more than the index; reads no sample.
    /// `None`: nothing more is known, or the index is out of range.
    fn origin(&self, index: usize) -> Option<Self::Origin> {
        let _ = index;
        None
    }

    /// What it does ahead of a `get` (see [`Ahead`]). The default:
    /// nothing.
    fn ahead(&self) -> Ahead {
        Ahead::Nothing
    }

    /// A hint that sample `index` is read soon, where the storage takes
    /// [`Ahead::Hints`]. The default does nothing; an index out of range
    /// must be ignored.
    fn prefetch(&self, index: usize) {
        let _ = index;
    }

    /// Do the I/O of sample `index` now, where the storage
    /// [`Ahead::Reads`]: its bytes, as a [`Fetched`] for the sample's
    /// `get_fetched` (`Dataset::get_fetched`, `Sensor::get_fetched`),
    /// which then does not read them again. A `get` without one reads for
    /// itself, and a failed fetch is no loss (the `get` reads again and
    /// reports the error where it belongs); an index out of range gives
    /// nothing. The default reads nothing.
    fn fetch(&self, index: usize) -> Result<Fetched> {
        let _ = index;
        Ok(Fetched::Nothing)
    }

    /// How many reads sample `index`'s fetch is made of that can run at
    /// once, each by [`fetch_part`](Storage::fetch_part): a
    /// [`Recording`](crate::Recording) reads each of its sensors apart, so
    /// that a read stage waits on a slow store once per sample, not once
    /// per sensor. The default: one, the whole fetch.
    fn parts(&self, index: usize) -> usize {
        let _ = index;
        1
    }

    /// Do read `part` (below [`parts`](Storage::parts)) of sample
    /// `index`'s fetch; the parts of a sample, put together by
    /// [`Fetched::parts`] in order, are its fetch. The default: part 0 is
    /// the whole fetch, and any other reads nothing.
    fn fetch_part(&self, index: usize, part: usize) -> Result<Fetched> {
        match part {
            0 => self.fetch(index),
            _ => Ok(Fetched::Nothing),
        }
    }
}

/// An origin seen at another index: a wrapper that moves samples gives its
/// source's origin, renumbered (see [`Route`]).
pub trait Renumber {
    /// This origin, as sample `index` of the wrapper.
    fn at(self, index: usize) -> Self;
}

impl Renumber for Origin {
    fn at(self, index: usize) -> Self {
        Origin::at(self, index)
    }
}

impl Renumber for crate::SensorOrigin {
    fn at(mut self, index: usize) -> Self {
        self.index = index;
        self
    }
}

/// A wrapper that moves samples, or makes one of several: where sample
/// `index` is stored ([`Routes`]: its sources' storages and the sample's
/// index there, for each source sample it is made of). Every hook of
/// [`Storage`] follows from it: a wrapper's `storage()` is then
/// `Some(self)`.
pub trait Route {
    /// Its samples' origin type (the source's).
    type Origin: Renumber;

    /// Where sample `index` is stored; [`Routes::None`] where the index is
    /// out of range or its sources have no storage.
    fn route(&self, index: usize) -> Routes<'_, Self::Origin>;

    /// What its sources do ahead: the most of any (see [`Ahead::of`]).
    fn ahead(&self) -> Ahead;

    /// Where sample `index` is stored: a sample made of one source sample
    /// is where that one is (renumbered); one made of several is not one
    /// place, so nothing is known (the default; a [`Window`](crate::Window)
    /// names its own sample).
    fn origin(&self, index: usize) -> Option<Self::Origin> {
        match self.route(index) {
            Routes::One(storage, at) => storage.origin(at).map(|o| o.at(index)),
            Routes::None | Routes::Many(_) => None,
        }
    }
}

/// Where one sample is stored (see [`Route`]).
pub enum Routes<'a, O> {
    /// Nowhere known: the index is out of range, or no source has a
    /// storage.
    None,
    /// One source sample (a shuffle, a skip, a concatenation): its
    /// storage, in its own parts.
    One(&'a dyn Storage<Origin = O>, usize),
    /// Several source samples (a batch, a window, a pair), one part each.
    Many(Vec<(&'a dyn Storage<Origin = O>, usize)>),
}

impl<'a, O> Routes<'a, O> {
    /// Sample `at` of `storage`, where there is a storage.
    pub fn one(storage: Option<&'a dyn Storage<Origin = O>>, at: usize) -> Self {
        match storage {
            Some(storage) => Routes::One(storage, at),
            None => Routes::None,
        }
    }

    /// Each sample of `indices` of `storage`, where there is a storage.
    pub fn each(
        storage: Option<&'a dyn Storage<Origin = O>>,
        indices: impl IntoIterator<Item = usize>,
    ) -> Self {
        match storage {
            Some(storage) => Routes::Many(indices.into_iter().map(|i| (storage, i)).collect()),
            None => Routes::None,
        }
    }
}

impl<R: Route + ?Sized> Storage for R {
    type Origin = R::Origin;

    fn origin(&self, index: usize) -> Option<R::Origin> {
        Route::origin(self, index)
    }

    fn ahead(&self) -> Ahead {
        Route::ahead(self)
    }

    fn prefetch(&self, index: usize) {
        match self.route(index) {
            Routes::None => {}
            Routes::One(storage, at) => storage.prefetch(at),
            Routes::Many(samples) => samples.into_iter().for_each(|(s, at)| s.prefetch(at)),
        }
    }

    fn fetch(&self, index: usize) -> Result<Fetched> {
        match self.route(index) {
            Routes::None => Ok(Fetched::Nothing),
            Routes::One(storage, at) => storage.fetch(at),
            Routes::Many(samples) => samples
                .into_iter()
                .map(|(storage, at)| storage.fetch(at))
                .collect::<Result<Vec<_>>>()
                .map(Fetched::parts),
        }
    }

    fn parts(&self, index: usize) -> usize {
        match self.route(index) {
            Routes::None => 1,
            Routes::One(storage, at) => storage.parts(at),
            Routes::Many(samples) => samples.len().max(1),
        }
    }

    fn fetch_part(&self, index: usize, part: usize) -> Result<Fetched> {
        match self.route(index) {
            Routes::None => Ok(Fetched::Nothing),
            Routes::One(storage, at) => storage.fetch_part(at, part),
            Routes::Many(samples) => match samples.get(part) {
                Some(&(storage, at)) => storage.fetch(at),
                None => Ok(Fetched::Nothing),
            },
        }
    }
}

/// A dataset's storage, or where it has none, one that knows each
/// sample's index alone: a wrapper that moves samples routes through it,
/// so that the origin of its sample names the source's index either way.
pub fn of<D: Dataset + ?Sized>(dataset: &D) -> &dyn Storage<Origin = Origin> {
    dataset.storage().unwrap_or(&IndexOnly)
}

/// The storage of a dataset that has none: each sample's index, and
/// nothing ahead.
struct IndexOnly;

impl Storage for IndexOnly {
    type Origin = Origin;

    fn origin(&self, index: usize) -> Option<Origin> {
        Some(Origin::unknown(index))
    }
}

/// Every wrapper keeps its source's reads ahead, at the right index, and
/// hands each read to the `get` of the source sample it was made for: a
/// wrapper that forgot would lose the read stage silently.
#[cfg(test)]
mod tests {
    use std::marker::PhantomData;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::pipes::DatasetExt;
    use crate::sample::{Amount, Sampling, Seed};
    use crate::{
        Concat, Dataset, Origin, Recording, Sensor, SensorDataset, SensorOrigin, Series,
        Timestamps, Window, sync,
    };

    /// What a fetching source saw: the indices fetched and hinted, and
    /// the indices whose `get` came with their own read (each read is its
    /// index, so a read handed to another index's `get` is seen); its
    /// origins are of type `O`.
    struct Calls<O> {
        fetched: Mutex<Vec<usize>>,
        hinted: Mutex<Vec<usize>>,
        got_read: Mutex<Vec<usize>>,
        origin: PhantomData<fn() -> O>,
    }

    impl<O> Default for Calls<O> {
        fn default() -> Self {
            Calls {
                fetched: Mutex::default(),
                hinted: Mutex::default(),
                got_read: Mutex::default(),
                origin: PhantomData,
            }
        }
    }

    impl<O> Calls<O> {
        /// The indices fetched and those whose get had their read, taken.
        fn take(&self) -> (Vec<usize>, Vec<usize>) {
            (
                std::mem::take(&mut *self.fetched.lock().unwrap()),
                std::mem::take(&mut *self.got_read.lock().unwrap()),
            )
        }

        /// A `get` of `index` with `fetched`: its read must be its own.
        fn get(&self, index: usize, fetched: Fetched) -> Result<usize> {
            if let Some(read) = fetched.take::<usize>() {
                assert_eq!(read, index, "index {index} got the read of {read}");
                self.got_read.lock().unwrap().push(index);
            }
            Ok(index)
        }
    }

    impl<O> Storage for Calls<O> {
        type Origin = O;
        fn ahead(&self) -> Ahead {
            Ahead::Reads
        }
        fn prefetch(&self, index: usize) {
            self.hinted.lock().unwrap().push(index);
        }
        fn fetch(&self, index: usize) -> Result<Fetched> {
            self.fetched.lock().unwrap().push(index);
            Ok(Fetched::read(index, 1))
        }
    }

    /// A dataset of `len` samples (sample `i` is `i`) that reads ahead.
    struct Source {
        len: usize,
        calls: Arc<Calls<Origin>>,
    }

    impl Dataset for Source {
        type Sample = usize;
        fn len(&self) -> usize {
            self.len
        }
        fn get(&self, index: usize) -> Result<usize> {
            Ok(index)
        }
        fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<usize> {
            self.calls.get(index, fetched)
        }
        fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
            Some(&*self.calls)
        }
    }

    /// A sensor of `len` samples, one every 0.1 s, that reads ahead.
    struct Camera {
        name: String,
        times: Timestamps,
        calls: Arc<Calls<SensorOrigin>>,
    }

    impl Sensor for Camera {
        type Sample = usize;
        type Metadata = Timestamps;
        fn name(&self) -> &str {
            &self.name
        }
        fn metadata(&self) -> &Timestamps {
            &self.times
        }
        fn get(&self, index: usize) -> Result<usize> {
            Ok(index)
        }
        fn get_fetched(&self, index: usize, fetched: Fetched) -> Result<usize> {
            self.calls.get(index, fetched)
        }
        fn storage(&self) -> Option<&dyn Storage<Origin = SensorOrigin>> {
            Some(&*self.calls)
        }
    }

    fn source(len: usize) -> (Source, Arc<Calls<Origin>>) {
        let calls = Arc::new(Calls::default());
        let source = Source {
            len,
            calls: Arc::clone(&calls),
        };
        (source, calls)
    }

    fn camera(name: &str, len: usize) -> (Camera, Arc<Calls<SensorOrigin>>) {
        let calls = Arc::new(Calls::default());
        let times = (0..len).map(|i| i as f64 * 0.1).collect();
        let camera = Camera {
            name: name.to_owned(),
            times: Timestamps::new(name, times).unwrap(),
            calls: Arc::clone(&calls),
        };
        (camera, calls)
    }

    /// Sample `index`'s read, fetched part by part as a read stage does.
    fn read_parts<O>(reads: &dyn Storage<Origin = O>, index: usize) -> Fetched {
        let parts = (0..reads.parts(index))
            .map(|p| reads.fetch_part(index, p).unwrap())
            .collect();
        Fetched::parts(parts)
    }

    /// `reads` fetches sample `index` part by part, and `get` gets it with
    /// that read: the source sees `source_indices` hinted, fetched, and
    /// each got with its own read.
    #[track_caller]
    fn routes<O, C>(
        what: &str,
        reads: Option<&dyn Storage<Origin = O>>,
        get: impl Fn(usize, Fetched),
        calls: &Calls<C>,
        index: usize,
        source_indices: &[usize],
    ) {
        let reads = reads.unwrap_or_else(|| panic!("{what} lost its source's storage"));
        assert_eq!(reads.ahead(), Ahead::Reads, "{what}: ahead");
        reads.prefetch(index);
        let hinted = std::mem::take(&mut *calls.hinted.lock().unwrap());
        assert_eq!(hinted, source_indices, "{what}: hinted");
        let read = read_parts(reads, index);
        assert_eq!(read.bytes(), source_indices.len() as u64, "{what}: bytes");
        get(index, read);
        let (fetched, got) = calls.take();
        assert_eq!(fetched, source_indices, "{what}: fetched");
        assert_eq!(got, source_indices, "{what}: got with their reads");
        // The whole fetch is the same read.
        get(index, reads.fetch(index).unwrap());
        assert_eq!(
            calls.take(),
            (source_indices.to_vec(), source_indices.to_vec()),
            "{what}: fetch"
        );
    }

    /// [`routes`] for a dataset `d`.
    macro_rules! dataset_routes {
        ($what:expr, $d:expr, $calls:expr, $index:expr, $at:expr) => {{
            let d = $d;
            routes(
                $what,
                d.storage(),
                |i, f| {
                    d.get_fetched(i, f).unwrap();
                },
                &$calls,
                $index,
                $at,
            )
        }};
    }

    /// [`routes`] for a sensor `s`.
    macro_rules! sensor_routes {
        ($what:expr, $s:expr, $calls:expr, $index:expr, $at:expr) => {{
            let s = $s;
            routes(
                $what,
                Sensor::storage(&s),
                |i, f| {
                    Sensor::get_fetched(&s, i, f).unwrap();
                },
                &$calls,
                $index,
                $at,
            )
        }};
    }

    #[test]
    fn every_dataset_wrapper_keeps_read_ahead() {
        let (s, c) = source(10);
        dataset_routes!("a reference", &s, c, 3, &[3]);
        let (s, c) = source(10);
        dataset_routes!("a box", Box::new(s), c, 3, &[3]);
        let (s, c) = source(10);
        dataset_routes!("an Arc", Arc::new(s), c, 3, &[3]);

        let (s, c) = source(10);
        dataset_routes!("map", s.map(|x: usize| x + 1), c, 3, &[3]);
        let (s, c) = source(10);
        let mapped = s.try_map(|x: usize| Ok::<_, crate::Error>(x));
        dataset_routes!("try_map", mapped, c, 3, &[3]);
        let (s, c) = source(10);
        dataset_routes!("enumerate", s.enumerate(), c, 3, &[3]);
        let (s, c) = source(10);
        let keyed = s.map(|i: usize| std::collections::BTreeMap::from([("i".to_owned(), i)]));
        dataset_routes!("with_meta", keyed.with_meta(0), c, 3, &[3]);
        let (s, c) = source(10);
        dataset_routes!("take", s.take(5), c, 3, &[3]);
        let (s, c) = source(10);
        dataset_routes!("skip", s.skip(4), c, 3, &[7]);
        let (s, c) = source(10);
        let shuffled = s.shuffled(7);
        let at = shuffled.get(3).unwrap();
        dataset_routes!("shuffled", shuffled, c, 3, &[at]);
        let (s, c) = source(10);
        let sampled = crate::sample::Sampled::new(
            s,
            Amount::Count(4),
            Sampling::LowDiscrepancy(Seed::Offset(0)),
        )
        .unwrap();
        let at = sampled.get(2).unwrap();
        dataset_routes!("sampled", sampled, c, 2, &[at]);
        let (s, c) = source(10);
        dataset_routes!("batch", s.batch(4).unwrap(), c, 2, &[8, 9]);
        let (s, c) = source(10);
        dataset_routes!("window", s.window(3, 2).unwrap(), c, 1, &[2, 3, 4]);

        // Two sources: the one the sample is in, or both.
        let (a, ca) = source(4);
        let (b, cb) = source(6);
        let chained = a.chain(b).unwrap();
        dataset_routes!("chain (first)", &chained, ca, 1, &[1]);
        dataset_routes!("chain (second)", &chained, cb, 5, &[1]);
        let (a, ca) = source(4);
        let (b, cb) = source(6);
        let zipped = a.zip(b);
        let reads = zipped.storage().expect("zip keeps reads ahead");
        assert_eq!(reads.parts(2), 2);
        zipped.get_fetched(2, read_parts(reads, 2)).unwrap();
        assert_eq!(ca.take(), (vec![2], vec![2]));
        assert_eq!(cb.take(), (vec![2], vec![2]));
        let (a, ca) = source(4);
        let (b, cb) = source(6);
        let concat = Concat::new(vec![a, b]).unwrap();
        dataset_routes!("concat (first)", &concat, ca, 3, &[3]);
        dataset_routes!("concat (second)", &concat, cb, 4, &[0]);
    }

    #[test]
    fn a_zip_with_one_source_that_reads_gives_it_its_own_read() {
        let (b, cb) = source(6);
        let zipped = crate::InMemory::from(vec![10, 11, 12]).zip(b);
        let reads = zipped.storage().expect("zip keeps reads ahead");
        assert_eq!(reads.parts(1), 2, "a part per source, read or not");
        assert_eq!(
            zipped.get_fetched(1, read_parts(reads, 1)).unwrap(),
            (11, 1)
        );
        assert_eq!(cb.take(), (vec![1], vec![1]));
    }

    #[test]
    fn every_sensor_wrapper_keeps_read_ahead() {
        let (cam, c) = camera("camera", 10);
        sensor_routes!("a sensor", cam, c, 3, &[3]);
        let (cam, c) = camera("camera", 10);
        sensor_routes!("map", cam.map(|x| x * 2), c, 3, &[3]);
        let (cam, c) = camera("camera", 10);
        sensor_routes!("try_map", cam.try_map(|x| Ok(x * 2)), c, 3, &[3]);
        let (cam, c) = camera("camera", 10);
        sensor_routes!("boxed", cam.boxed(), c, 3, &[3]);
        let (cam, c) = camera("camera", 10);
        sensor_routes!(
            "a window",
            Window::new(cam, 2, 0).unwrap(),
            c,
            0,
            &[0, 1, 2]
        );
        let (cam, c) = camera("camera", 10);
        let stacked = Window::new(cam, 1, 0).unwrap().stacked();
        routes(
            "a stacked window",
            Sensor::storage(&stacked),
            |i, f| drop(Sensor::get_fetched(&stacked, i, f)),
            &c,
            0,
            &[0, 1],
        );
        let (cam, c) = camera("camera", 10);
        let dataset = SensorDataset::new(cam);
        dataset_routes!("a sensor's dataset", dataset, c, 3, &[3]);
    }

    #[test]
    fn a_recording_reads_each_fetching_sensor_as_a_part() {
        let (camera, cc) = camera("camera", 10);
        let (radar, cr) = self::camera("radar", 10);
        let plain = Series::new(
            "imu",
            Timestamps::new("imu", (0..10).map(|i| i as f64 * 0.1).collect()).unwrap(),
            Ok,
        );
        let sensors = vec![camera.boxed(), radar.boxed(), plain.boxed()];
        let nearest = sync::Nearest::new("camera", 0.01).unwrap();
        let recording = Recording::new("run", sensors, &nearest).unwrap();
        let reads = recording.storage().expect("a recording keeps reads ahead");
        assert_eq!(reads.parts(4), 3);
        let camera_read = reads.fetch_part(4, 0).unwrap();
        let imu_read = reads.fetch_part(4, 2).unwrap();
        assert!(imu_read.is_nothing(), "the imu reads nothing ahead");
        assert_eq!(cc.take(), (vec![4], vec![]));
        // The radar's part was not read: its get reads for itself.
        let read = Fetched::parts(vec![camera_read, Fetched::Nothing, imu_read]);
        recording.get_fetched(4, read).unwrap();
        assert_eq!(cc.take(), (vec![], vec![4]));
        assert_eq!(cr.take(), (vec![], vec![]));
        // A read dropped unused is gone: nothing is kept for a later get.
        drop(reads.fetch(4).unwrap());
        assert_eq!(cc.take(), (vec![4], vec![]));
        recording.get(4).unwrap();
        assert_eq!(cc.take(), (vec![], vec![]));

        let times = Timestamps::new("imu", vec![0.0, 0.1]).unwrap();
        let plain = Series::new("imu", times, Ok);
        let nearest = sync::Nearest::new("imu", 0.01).unwrap();
        let none = Recording::new("run", vec![plain], &nearest).unwrap();
        assert_eq!(Ahead::of(none.storage()), Ahead::Nothing, "nothing ahead");
    }

    #[test]
    fn one_index_read_twice_gets_each_read_once() {
        let (s, c) = source(4);
        let reads = s.storage().unwrap();
        let (first, second) = (reads.fetch(2).unwrap(), reads.fetch(2).unwrap());
        s.get_fetched(2, first).unwrap();
        s.get_fetched(2, second).unwrap();
        assert_eq!(c.take(), (vec![2, 2], vec![2, 2]));
    }

    #[test]
    fn wrappers_of_a_source_without_storage_do_nothing_ahead() {
        let plain = crate::InMemory::from(vec![1, 2, 3]);
        assert!(plain.storage().is_none());
        let shuffled = crate::InMemory::from(vec![1, 2, 3]).shuffled(1);
        assert_eq!(Ahead::of(shuffled.storage()), Ahead::Nothing);
        let chained = crate::InMemory::from(vec![1])
            .chain(crate::InMemory::from(vec![2]))
            .unwrap();
        assert_eq!(Ahead::of(chained.storage()), Ahead::Nothing);
    }

    /// A dataset in memory that takes hints.
    struct Hinted(Calls<Origin>);

    impl Dataset for Hinted {
        type Sample = usize;
        fn len(&self) -> usize {
            4
        }
        fn get(&self, index: usize) -> Result<usize> {
            Ok(index)
        }
        fn storage(&self) -> Option<&dyn Storage<Origin = Origin>> {
            Some(self)
        }
    }

    impl Storage for Hinted {
        type Origin = Origin;
        fn ahead(&self) -> Ahead {
            Ahead::Hints
        }
        fn prefetch(&self, index: usize) {
            self.0.prefetch(index);
        }
    }

    #[test]
    fn a_wrapper_does_the_most_its_sources_do_ahead() {
        let hints = Hinted(Calls::default());
        let shuffled = (&hints).shuffled(3);
        assert_eq!(Ahead::of(shuffled.storage()), Ahead::Hints);
        let at = shuffled.get(1).unwrap();
        shuffled.storage().unwrap().prefetch(1);
        assert_eq!(
            *hints.0.hinted.lock().unwrap(),
            [at],
            "hints reach the source"
        );

        let (reads, _) = source(2);
        let chained = (&hints).chain(reads).unwrap();
        assert_eq!(Ahead::of(chained.storage()), Ahead::Reads);
    }

    #[test]
    fn a_wrapper_that_moves_samples_renumbers_its_source_origins() {
        let shuffled = crate::InMemory::from(vec![10, 11, 12, 13]).shuffled(5);
        let at = shuffled.get(2).unwrap() - 10;
        let origin = Origin::of(&shuffled, 2).unwrap();
        assert_eq!((origin.index, origin.trace_index), (2, at));
        assert!(Origin::of(&shuffled, 4).is_err(), "out of range");

        let times = |n: usize| Timestamps::new("imu", (0..n).map(|i| i as f64).collect());
        let trace = |name: &str| {
            let imu = Series::new("imu", times(3).unwrap(), Ok);
            Recording::aligned(name, vec![imu]).unwrap()
        };
        let both = trace("a").chain(trace("b")).unwrap().skip(1);
        let origin = Origin::of(&both, 3).unwrap();
        assert_eq!(origin.trace.as_deref(), Some("b"));
        assert_eq!((origin.index, origin.trace_index), (3, 1));
        assert_eq!(origin.sensors[0].index, 1);

        let batched = trace("a").batch(2).unwrap();
        assert_eq!(Origin::of(&batched, 1).unwrap(), Origin::unknown(1));
        let window = Window::new(Series::new("imu", times(5).unwrap(), Ok), 1, 0).unwrap();
        let origin = SensorOrigin::of(&window, 0);
        assert_eq!((origin.index, origin.window), (0, Some((1, 0))));
    }
}
