//! [`Store`]: a bucket of an object store (or an HTTP server) that sensors
//! read their files from, with blocking reads, retries and counters.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use adl_core::{Error, Result};
use bytes::Bytes;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, ObjectStoreScheme};
use url::Url;

use crate::retry::{Counters, GaveUp, RetryPolicy, RetryingConnector, causes, no_retries};
use crate::runtime::wait;

/// A bucket of an object store, a container, or an HTTP server: where the
/// files of a [`Location`](crate::Location) given as a URL are read from, through the
/// [`object_store`] crate.
///
/// A store is opened from a URL: `s3://bucket` (Amazon S3 and compatible
/// servers, feature `s3`), `gs://bucket` (Google Cloud Storage, `gcs`),
/// `az://container` or `abfs://` (Azure Blob Storage, `azure`), `http://`
/// or `https://` (a plain HTTP server, `http`). Its credentials and
/// settings come from each cloud's standard environment variables, as its
/// command-line tools read them: `AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`,
/// `AWS_ENDPOINT_URL` (or `AWS_ENDPOINT`) and `AWS_ALLOW_HTTP` for S3;
/// `GOOGLE_SERVICE_ACCOUNT`, `GOOGLE_SERVICE_ACCOUNT_KEY` or
/// `GOOGLE_APPLICATION_CREDENTIALS` for GCS; `AZURE_STORAGE_ACCOUNT_NAME`
/// and `AZURE_STORAGE_ACCOUNT_KEY` (or a SAS token, or a service
/// principal) for Azure; then [`StoreOptions::with_config`] on top.
///
/// Its reads block the calling thread (a sensor's, a loader worker's)
/// while the request runs on a runtime shared by all stores. Each request
/// has a time limit; a transient failure is retried as its
/// [`RetryPolicy`] says; [`stats`](Store::stats) counts what was done. A
/// failure is an [`Error::Source`] naming the object's URL and the cause
/// in words ("no such object", "access denied: ...", "still failing after
/// 5 retries: ...").
///
/// A store is a cheap handle: clones share the connections and counters.
///
/// ```no_run
/// use adl::files::{Npy, Store, StoreOptions, RetryPolicy};
/// use std::time::Duration;
///
/// // Credentials and endpoint from AWS_* variables; 3 retries at most.
/// let options = StoreOptions::default()
///     .with_retry(RetryPolicy::new(3, Duration::from_millis(100), Duration::from_secs(1)));
/// let store = Store::open_with("s3://recordings", &options)?;
/// let header = store.get_range("drive-07/radar/data.npy", 0..128)?;
/// let radar: Npy<f32> = Npy::in_folder(store.at("drive-07/radar"))?;
/// println!("{} requests, {} retried", store.stats().requests, store.stats().retries);
/// # Ok::<(), adl::Error>(())
/// ```
#[derive(Clone)]
pub struct Store {
    inner: Arc<Opened>,
}

/// What a [`Store`] handle shares.
struct Opened {
    /// `s3://bucket`, `https://host`: the URL of the store, objects' keys
    /// after it.
    root: String,
    objects: Arc<dyn ObjectStore>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("root", &self.inner.root)
            .field("stats", &self.stats())
            .finish()
    }
}

/// How a [`Store`] is opened: its retries, its time limits, and settings
/// beyond the environment's.
///
/// ```
/// use std::time::Duration;
/// use adl::files::{RetryPolicy, StoreOptions};
///
/// let options = StoreOptions::default()
///     .with_timeout(Duration::from_secs(10))
///     .with_retry(RetryPolicy::new(2, Duration::from_millis(20), Duration::from_millis(200)))
///     .with_config("aws_endpoint", "http://127.0.0.1:9000")
///     .with_config("aws_allow_http", "true");
/// assert_eq!(options.timeout(), Duration::from_secs(10));
/// assert_eq!(options.retry().max_retries, 2);
/// ```
#[derive(Debug, Clone)]
pub struct StoreOptions {
    retry: RetryPolicy,
    timeout: Duration,
    connect_timeout: Duration,
    config: Vec<(String, String)>,
}

impl Default for StoreOptions {
    /// [`RetryPolicy::default`], 30 s per request, 5 s to connect, the
    /// environment's settings alone.
    fn default() -> Self {
        StoreOptions {
            retry: RetryPolicy::default(),
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(5),
            config: Vec::new(),
        }
    }
}

impl StoreOptions {
    /// Retry transient failures as `policy` says.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Give up on one try of a request after `timeout`, from its start to
    /// its answer's last byte (a timeout is a transient failure: the
    /// request is retried).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Give up opening a connection after `timeout`.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Set the store's setting `key` (as object_store names them, which
    /// are the environment variables' names in lower case:
    /// `aws_endpoint`, `aws_region`, `aws_access_key_id`,
    /// `aws_allow_http`, `google_service_account`,
    /// `azure_storage_account_name`...) to `value`, over the environment's.
    /// A key the store does not know is refused when it is opened.
    pub fn with_config(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.config.push((key.into(), value.into()));
        self
    }

    /// The retry policy.
    pub fn retry(&self) -> RetryPolicy {
        self.retry
    }

    /// The time limit on one try of a request.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The time limit on opening a connection.
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }
}

/// What a [`Store`] has done since it was opened (all its clones
/// together), from [`Store::stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreStats {
    /// HTTP requests sent, retries included.
    pub requests: u64,
    /// Requests sent again after a transient failure.
    pub retries: u64,
    /// Requests answered with an error that is not retried (such as no
    /// such object, access denied), or still failing after the last retry.
    pub failures: u64,
    /// Bytes received in successful answers.
    pub bytes: u64,
}

/// The stores that [`Location`](crate::Location)s given as URLs are read through, one per
/// root.
static SHARED: OnceLock<Mutex<HashMap<String, Store>>> = OnceLock::new();

fn shared() -> std::sync::MutexGuard<'static, HashMap<String, Store>> {
    SHARED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

impl Store {
    /// The store of `url` (any URL in it: `s3://bucket/a/b.npy` opens
    /// `s3://bucket`), with [`StoreOptions::default`].
    pub fn open(url: &str) -> Result<Store> {
        Store::open_with(url, &StoreOptions::default())
    }

    /// The store of `url`, opened with `options`. A URL that is not one, a
    /// scheme this build cannot read (see the features), or a setting the
    /// store refuses: an [`Error::Source`] naming the URL.
    pub fn open_with(url: &str, options: &StoreOptions) -> Result<Store> {
        let parsed = ObjectUrl::parse(url)?;
        let counters = Arc::new(Counters::default());
        let connector = RetryingConnector {
            policy: options.retry,
            counters: Arc::clone(&counters),
            timeout: options.timeout,
            connect_timeout: options.connect_timeout,
            allow_http: parsed.url.scheme() == "http",
        };
        let objects = build(&parsed, options, connector)
            .map_err(|e| Error::file(url, format!("cannot open its store: {e}")))?;
        Ok(Store {
            inner: Arc::new(Opened {
                root: parsed.root,
                objects,
                counters,
            }),
        })
    }

    /// The store that locations given as URL strings in `url`'s store are
    /// read through: one per store root in the process, opened with
    /// [`StoreOptions::default`] (and the environment as it is then) on
    /// first use, unless [`share`](Store::share) put another there.
    pub fn shared(url: &str) -> Result<Store> {
        let root = ObjectUrl::parse(url)?.root;
        if let Some(store) = shared().get(&root) {
            return Ok(store.clone());
        }
        // Opened outside the lock (it may read files for credentials);
        // the first to finish is kept.
        let opened = Store::open(url)?;
        Ok(shared().entry(root).or_insert(opened).clone())
    }

    /// Make this store the one that locations given as URL strings in it
    /// are read through (see [`shared`](Store::shared)), in place of the
    /// one there (returned). Sensors opened before keep the store they
    /// have.
    pub fn share(&self) -> Option<Store> {
        shared().insert(self.inner.root.clone(), self.clone())
    }

    /// The store's URL, e.g. `s3://bucket`.
    pub fn root(&self) -> &str {
        &self.inner.root
    }

    /// The URL of the object `key` in this store.
    pub fn url(&self, key: &str) -> String {
        let key = key.trim_matches('/');
        if key.is_empty() {
            self.inner.root.clone()
        } else {
            format!("{}/{key}", self.inner.root)
        }
    }

    /// The size in bytes of the object `key` (one HEAD request).
    pub fn size(&self, key: &str) -> Result<u64> {
        let objects = Arc::clone(&self.inner.objects);
        let path = Path::from(key);
        self.request(key, async move {
            objects.head(&path).await.map(|meta| meta.size)
        })
    }

    /// Whether there is an object `key` (one HEAD request): `false` where
    /// the store answers that there is none, an error where it cannot
    /// tell.
    pub(crate) fn exists(&self, key: &str) -> Result<bool> {
        let objects = Arc::clone(&self.inner.objects);
        let path = Path::from(key);
        match self.call(async move { objects.head(&path).await }) {
            Ok(_) => Ok(true),
            Err(Failure::Store(object_store::Error::NotFound { .. })) => Ok(false),
            Err(failure) => Err(self.failed(key, failure)),
        }
    }

    /// The whole object `key`.
    pub fn get(&self, key: &str) -> Result<Bytes> {
        let objects = Arc::clone(&self.inner.objects);
        let path = Path::from(key);
        self.request(key, async move { objects.get(&path).await?.bytes().await })
    }

    /// The bytes `range` of the object `key`; a range that ends past the
    /// object's end is cut at the end, one that starts past it refused.
    pub fn get_range(&self, key: &str, range: Range<u64>) -> Result<Bytes> {
        if range.start >= range.end {
            return Err(Error::file(
                self.url(key),
                format!("the byte range {range:?} is empty"),
            ));
        }
        let objects = Arc::clone(&self.inner.objects);
        let path = Path::from(key);
        self.request(key, async move { objects.get_range(&path, range).await })
    }

    /// The first `len` bytes of the object `key` (all of it if it is
    /// shorter) and its size, with one request.
    pub(crate) fn get_start(&self, key: &str, len: u64) -> Result<(Bytes, u64)> {
        let objects = Arc::clone(&self.inner.objects);
        let path = Path::from(key);
        let first = self.call(async move {
            let options = GetOptions {
                range: Some(GetRange::Bounded(0..len)),
                ..GetOptions::default()
            };
            let got = objects.get_opts(&path, options).await?;
            let size = got.meta.size;
            Ok((got.bytes().await?, size))
        });
        match first {
            Ok(answer) => Ok(answer),
            // No range of an empty object can be read (the answer is an
            // error status of its own): an object that is there, answering
            // so, is asked its size.
            Err(Failure::Store(e @ object_store::Error::Generic { .. }))
                if gave_up(&e).is_none() =>
            {
                match self.size(key) {
                    Ok(0) => Err(Error::file(self.url(key), "the object is empty")),
                    _ => Err(self.failed(key, Failure::Store(e))),
                }
            }
            Err(failure) => Err(self.failed(key, failure)),
        }
    }

    /// The keys of the objects in the folder `key` (not in its
    /// subfolders), sorted; none if there is no such folder.
    pub fn list(&self, key: &str) -> Result<Vec<String>> {
        let objects = Arc::clone(&self.inner.objects);
        let key = key.trim_matches('/');
        let prefix = (!key.is_empty()).then(|| Path::from(key));
        let mut keys = self.request(key, async move {
            let listed = objects.list_with_delimiter(prefix.as_ref()).await?;
            Ok(listed
                .objects
                .into_iter()
                .map(|meta| meta.location.to_string())
                .collect::<Vec<_>>())
        })?;
        keys.sort();
        Ok(keys)
    }

    /// What this store (with all its clones) has done since it was opened.
    pub fn stats(&self) -> StoreStats {
        let counters = &self.inner.counters;
        StoreStats {
            requests: counters.requests.load(Ordering::Relaxed),
            retries: counters.retries.load(Ordering::Relaxed),
            failures: counters.failures.load(Ordering::Relaxed),
            bytes: counters.bytes.load(Ordering::Relaxed),
        }
    }

    /// Run `request` about the object `key`, waiting for it here; its
    /// failure in words, naming the object's URL.
    fn request<T: Send + 'static>(
        &self,
        key: &str,
        request: impl Future<Output = object_store::Result<T>> + Send + 'static,
    ) -> Result<T> {
        self.call(request)
            .map_err(|failure| self.failed(key, failure))
    }

    /// Run `request`, waiting for it here.
    fn call<T: Send + 'static>(
        &self,
        request: impl Future<Output = object_store::Result<T>> + Send + 'static,
    ) -> std::result::Result<T, Failure> {
        match wait(request) {
            Ok(answer) => answer.map_err(Failure::Store),
            Err(words) => Err(Failure::Runtime(words)),
        }
    }

    /// `failure` of a request about the object `key`, naming its URL.
    fn failed(&self, key: &str, failure: Failure) -> Error {
        let words = match failure {
            Failure::Store(e) => self.describe(&e),
            Failure::Runtime(words) => words,
        };
        Error::file(self.url(key), words)
    }

    /// object_store's `error` in words: what went wrong first, then the
    /// cause.
    fn describe(&self, error: &object_store::Error) -> String {
        let detail = brief(&causes(error));
        let scheme = self.inner.root.split("://").next().unwrap_or_default();
        match error {
            object_store::Error::NotFound { .. } if no_such_bucket(&detail) => {
                format!("no such bucket or container ({detail})")
            }
            object_store::Error::NotFound { .. } => format!("no such object ({detail})"),
            object_store::Error::PermissionDenied { .. } => {
                format!("access denied: check {} ({detail})", credentials(scheme))
            }
            object_store::Error::Unauthenticated { .. } => {
                format!(
                    "not authenticated: check {} ({detail})",
                    credentials(scheme)
                )
            }
            // GCS: the OAuth token the request needs could not be had (no
            // credentials given, so the instance's metadata server was
            // asked; or the token server refused or was not reached).
            _ if scheme == "gs" && detail.contains("token request") => {
                format!(
                    "no access token: check {}; without them the instance's metadata server is asked ({detail})",
                    credentials(scheme)
                )
            }
            _ => match gave_up(error) {
                Some(gave_up) => format!("unreachable: {gave_up}"),
                None => detail,
            },
        }
    }
}

/// Why a request failed.
enum Failure {
    /// object_store's error.
    Store(object_store::Error),
    /// The runtime could not run it.
    Runtime(String),
}

/// The [`GaveUp`] among `error`'s causes.
fn gave_up<'e>(error: &'e (dyn std::error::Error + 'static)) -> Option<&'e GaveUp> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(gave_up) = error.downcast_ref::<GaveUp>() {
            return Some(gave_up);
        }
        next = error.source();
    }
    None
}

/// An error's words on one line: an XML error document in them (S3's,
/// Azure's) replaced by its message.
fn brief(words: &str) -> String {
    let Some(start) = words.find("<?xml") else {
        let line = words.lines().collect::<Vec<_>>().join(" ");
        return line.trim_end().trim_end_matches(':').to_string();
    };
    let before = words[..start].trim_end().trim_end_matches(':');
    let message = words[start..]
        .split_once("<Message>")
        .and_then(|(_, rest)| rest.split_once("</Message>"))
        .map(|(message, _)| message.trim());
    let code = words[start..]
        .split_once("<Code>")
        .and_then(|(_, rest)| rest.split_once("</Code>"))
        .map(|(code, _)| code.trim());
    match (code, message) {
        (Some(code), Some(message)) => format!("{before}: {code}: {message}"),
        (None, Some(message)) => format!("{before}: {message}"),
        _ => before.to_string(),
    }
}

/// Whether a "not found" answer's words say the bucket is missing (S3's
/// and Azure's error codes), not only the object.
fn no_such_bucket(detail: &str) -> bool {
    ["NoSuchBucket", "ContainerNotFound"]
        .iter()
        .any(|code| detail.contains(code))
}

/// The settings that give a store of `scheme` its credentials.
fn credentials(scheme: &str) -> &'static str {
    match scheme {
        "s3" | "s3a" => "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)",
        "gs" => "GOOGLE_SERVICE_ACCOUNT or GOOGLE_APPLICATION_CREDENTIALS",
        "az" | "adl" | "azure" | "abfs" | "abfss" => {
            "AZURE_STORAGE_ACCOUNT_NAME and AZURE_STORAGE_ACCOUNT_KEY (or a SAS token)"
        }
        _ => "the credentials of the store",
    }
}

/// A URL split into its store's root and an object's key in it.
pub(crate) struct ObjectUrl {
    pub(crate) url: Url,
    scheme: ObjectStoreScheme,
    /// The URL of the store: `s3://bucket`, `https://host/container`.
    pub(crate) root: String,
    /// The object's key in the store (`""` for the store itself).
    pub(crate) key: String,
}

impl ObjectUrl {
    /// `text` as a URL that object_store reads, a folder's trailing `/`
    /// left out.
    pub(crate) fn parse(text: &str) -> Result<ObjectUrl> {
        let trimmed = text.trim_end_matches('/');
        let url = Url::parse(trimmed).map_err(|e| Error::file(text, format!("not a URL: {e}")))?;
        let (scheme, path) = ObjectStoreScheme::parse(&url).map_err(|e| {
            Error::file(
                text,
                format!(
                    "not the URL of an object store ({e}); adl reads s3://, gs://, az://, abfs://, http:// and https://"
                ),
            )
        })?;
        if matches!(scheme, ObjectStoreScheme::Local | ObjectStoreScheme::Memory) {
            return Err(Error::file(
                text,
                "not the URL of an object store; a local file is given by its path",
            ));
        }
        // The store's root is the URL without the key's segments (for
        // `https://s3.region.amazonaws.com/bucket/key` the bucket stays).
        let segments: Vec<&str> = url.path().split('/').filter(|s| !s.is_empty()).collect();
        let kept = segments.len().saturating_sub(path.parts().count());
        let root: String = segments[..kept]
            .iter()
            .fold(url[..url::Position::BeforePath].to_string(), |root, s| {
                root + "/" + s
            });
        Ok(ObjectUrl {
            key: path.to_string(),
            root,
            scheme,
            url,
        })
    }
}

/// object_store's client for `url`'s store: its builder from the
/// environment, then `options`, with `connector` sending the requests.
fn build(
    url: &ObjectUrl,
    options: &StoreOptions,
    connector: RetryingConnector,
) -> std::result::Result<Arc<dyn ObjectStore>, String> {
    let root = url.root.as_str();
    let config = options.config.iter();
    let unknown = |key: &str, e: object_store::Error| format!("setting `{key}`: {e}");
    match url.scheme {
        #[cfg(feature = "s3")]
        ObjectStoreScheme::AmazonS3 => {
            use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
            let mut builder = AmazonS3Builder::from_env().with_url(root);
            for (key, value) in config {
                let parsed: AmazonS3ConfigKey = key.parse().map_err(|e| unknown(key, e))?;
                builder = builder.with_config(parsed, value);
            }
            let built = builder
                .with_retry(no_retries())
                .with_http_connector(connector)
                .build();
            Ok(Arc::new(built.map_err(|e| causes(&e))?))
        }
        #[cfg(feature = "gcs")]
        ObjectStoreScheme::GoogleCloudStorage => {
            use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
            let mut builder = GoogleCloudStorageBuilder::from_env().with_url(root);
            for (key, value) in config {
                let parsed: GoogleConfigKey = key.parse().map_err(|e| unknown(key, e))?;
                builder = builder.with_config(parsed, value);
            }
            let built = builder
                .with_retry(no_retries())
                .with_http_connector(connector)
                .build();
            Ok(Arc::new(built.map_err(|e| causes(&e))?))
        }
        #[cfg(feature = "azure")]
        ObjectStoreScheme::MicrosoftAzure => {
            use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
            let mut builder = MicrosoftAzureBuilder::from_env().with_url(root);
            for (key, value) in config {
                let parsed: AzureConfigKey = key.parse().map_err(|e| unknown(key, e))?;
                builder = builder.with_config(parsed, value);
            }
            let built = builder
                .with_retry(no_retries())
                .with_http_connector(connector)
                .build();
            Ok(Arc::new(built.map_err(|e| causes(&e))?))
        }
        #[cfg(feature = "http")]
        ObjectStoreScheme::Http => {
            use object_store::ClientConfigKey;
            use object_store::http::HttpBuilder;
            let mut builder = HttpBuilder::new().with_url(root);
            for (key, value) in config {
                let parsed: ClientConfigKey = key.parse().map_err(|e| unknown(key, e))?;
                builder = builder.with_config(parsed, value);
            }
            let built = builder
                .with_retry(no_retries())
                .with_http_connector(connector)
                .build();
            Ok(Arc::new(built.map_err(|e| causes(&e))?))
        }
        ref other => {
            let _ = (config, unknown, connector);
            let feature = feature(other);
            Err(format!(
                "this build reads no {}:// URLs: enable the feature `{feature}` of adl-files \
                 (`store-{feature}` of adl), or `store` for every kind",
                url.url.scheme(),
            ))
        }
    }
}

/// The feature of adl-files that reads `scheme`.
fn feature(scheme: &ObjectStoreScheme) -> &'static str {
    match scheme {
        ObjectStoreScheme::AmazonS3 => "s3",
        ObjectStoreScheme::GoogleCloudStorage => "gcs",
        ObjectStoreScheme::MicrosoftAzure => "azure",
        _ => "http",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_split_into_its_store_and_its_key() {
        let cases = [
            (
                "s3://bucket/radar/data.npy",
                "s3://bucket",
                "radar/data.npy",
            ),
            ("s3://bucket/radar/", "s3://bucket", "radar"),
            ("s3://bucket", "s3://bucket", ""),
            ("gs://bucket/a%20b/c.csv", "gs://bucket", "a b/c.csv"),
            ("az://container/x", "az://container", "x"),
            (
                "https://s3.eu-west-1.amazonaws.com/bucket/radar/ts.npy",
                "https://s3.eu-west-1.amazonaws.com/bucket",
                "radar/ts.npy",
            ),
            (
                "http://127.0.0.1:8000/data/x.npy",
                "http://127.0.0.1:8000",
                "data/x.npy",
            ),
        ];
        for (text, root, key) in cases {
            let url = ObjectUrl::parse(text).unwrap();
            assert_eq!((url.root.as_str(), url.key.as_str()), (root, key), "{text}");
        }
    }

    #[test]
    fn an_xml_error_document_is_said_in_one_line() {
        let words = "Error performing GET http://h/b/k - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>k</Key></Error>";
        assert_eq!(
            brief(words),
            "Error performing GET http://h/b/k - Server returned non-2xx status code: 404 Not Found: NoSuchKey: The specified key does not exist."
        );
        assert_eq!(brief("a\nb"), "a b");
        assert_eq!(brief("403 Forbidden: "), "403 Forbidden");
    }

    #[test]
    fn what_is_not_an_object_store_url_is_refused_naming_it() {
        for (text, words) in [
            ("ftp://host/x", "not the URL of an object store"),
            ("file:///tmp/x.npy", "a local file is given by its path"),
            ("s3://", "not the URL of an object store"),
            ("not a url", "not a URL"),
        ] {
            let err = ObjectUrl::parse(text).err().unwrap().to_string();
            assert!(err.starts_with(text) && err.contains(words), "{err}");
        }
    }
}
