//! Retries of object storage requests: [`RetryPolicy`], and the HTTP
//! client wrapper that applies it to each request and counts what it did.
//!
//! object_store's own retry loop is turned off (its retries are not
//! counted anywhere a caller can read); every HTTP request a store sends
//! goes through [`Retrying`] instead, which sends it again after a
//! transient failure and counts requests, retries and bytes in
//! [`Counters`].

use std::collections::hash_map::RandomState;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse,
    HttpResponseBody, HttpService, ReqwestConnector,
};
use object_store::{ClientOptions, RetryConfig};

/// How a store retries a request that failed transiently: a refused or
/// reset connection, a timeout, an HTTP 5xx answer (but 501 and 505), 429
/// (too many requests) or 408 (request timeout).
///
/// Retry `n` (from 1) waits between half and all of
/// `min(base_delay * 2^(n-1), max_delay)`, the half at random (so that
/// workers that failed together do not retry together). A permanent
/// failure (no such object, access denied, a bad request) is never
/// retried.
///
/// ```
/// use std::time::Duration;
/// use adl::files::RetryPolicy;
///
/// let policy = RetryPolicy::default();
/// assert_eq!(policy.max_retries, 5);
/// assert_eq!(policy.base_delay, Duration::from_millis(50));
/// assert_eq!(policy.max_delay, Duration::from_secs(2));
///
/// let patient = RetryPolicy::new(10, Duration::from_millis(100), Duration::from_secs(5));
/// assert_eq!(patient.max_retries, 10);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// The most times one request is sent again (0: never retried).
    pub max_retries: u32,
    /// The wait before the first retry.
    pub base_delay: Duration,
    /// The longest wait between two tries.
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// At most `max_retries` retries, waiting `base_delay` and doubling up
    /// to `max_delay`.
    pub fn new(max_retries: u32, base_delay: Duration, max_delay: Duration) -> Self {
        RetryPolicy {
            max_retries,
            base_delay,
            max_delay,
        }
    }

    /// The wait before retry `retry` (from 1): between half and all of the
    /// exponential delay, capped.
    fn delay(&self, retry: u32) -> Duration {
        let doubled = self.base_delay.saturating_mul(
            1u32.checked_shl(retry.saturating_sub(1))
                .unwrap_or(u32::MAX),
        );
        let full = doubled.min(self.max_delay);
        let half = full / 2;
        // A random fraction of the other half; RandomState is seeded
        // randomly for each instance.
        let random = RandomState::new().build_hasher().finish();
        let fraction = (random >> 11) as f64 / (1u64 << 53) as f64;
        half + (full - half).mul_f64(fraction)
    }
}

impl Default for RetryPolicy {
    /// 5 retries, 50 ms first, at most 2 s apart.
    fn default() -> Self {
        RetryPolicy::new(5, Duration::from_millis(50), Duration::from_secs(2))
    }
}

/// What a store has done since it was opened, counted as it happened.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// HTTP requests sent, retries included.
    pub(crate) requests: AtomicU64,
    /// Requests sent again after a transient failure.
    pub(crate) retries: AtomicU64,
    /// Requests given up on: permanent failures, and transient ones still
    /// failing after the last retry.
    pub(crate) failures: AtomicU64,
    /// Bytes of the bodies of successful answers.
    pub(crate) bytes: AtomicU64,
}

impl Counters {
    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

/// object_store's retry configuration for a store whose requests are
/// retried by [`Retrying`]: none of its own.
pub(crate) fn no_retries() -> RetryConfig {
    RetryConfig {
        max_retries: 0,
        ..RetryConfig::default()
    }
}

/// An [`HttpConnector`] making object_store's HTTP clients (reqwest, with
/// the store's options and these timeouts) wrapped in [`Retrying`].
#[derive(Debug)]
pub(crate) struct RetryingConnector {
    pub(crate) policy: RetryPolicy,
    pub(crate) counters: Arc<Counters>,
    /// The limit on one request, from its start to its answer's last byte.
    pub(crate) timeout: Duration,
    /// The limit on opening a connection.
    pub(crate) connect_timeout: Duration,
    /// Plain `http://` allowed whatever the options say (a location that
    /// is an `http://` URL asks for it).
    pub(crate) allow_http: bool,
}

impl HttpConnector for RetryingConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let mut options = options
            .clone()
            .with_timeout(self.timeout)
            .with_connect_timeout(self.connect_timeout);
        if self.allow_http {
            options = options.with_allow_http(true);
        }
        tls_provider();
        let inner = ReqwestConnector::default().connect(&options)?;
        Ok(HttpClient::new(Retrying {
            inner,
            policy: self.policy,
            counters: Arc::clone(&self.counters),
        }))
    }
}

/// Make ring's cryptography rustls's default for this process where no
/// default is installed yet: reqwest, built here without a provider of
/// its own (see adl-files' Cargo.toml), takes the process's. A program
/// that installed another first keeps it.
fn tls_provider() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Another thread may install one between the two calls: theirs
            // is then the default, which is as good.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}

/// An HTTP client that sends each request again after a transient failure,
/// as its [`RetryPolicy`] says, and counts what it does.
///
/// The answer's body is read here, whole, so that a connection dropped in
/// the middle of a body is retried like one dropped before the answer.
#[derive(Debug)]
struct Retrying {
    inner: HttpClient,
    policy: RetryPolicy,
    counters: Arc<Counters>,
}

/// A request's failure that another try may not have.
enum Transient {
    /// An answer with this status (5xx, 429, 408), in words.
    Status(String),
    /// A connection refused or dropped, a timeout.
    Transport(HttpError),
}

impl Retrying {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let safe = matches!(request.method().as_str(), "GET" | "HEAD" | "OPTIONS");
        let (head, body) = request.into_parts();
        let mut retries = 0;
        loop {
            Counters::add(&self.counters.requests, 1);
            let attempt = HttpRequest::from_parts(head.clone(), body.clone());
            let failure = match self.inner.execute(attempt).await {
                Ok(response) => {
                    let status = response.status();
                    if transient_status(status.as_u16()) && safe {
                        Transient::Status(status.to_string())
                    } else {
                        let (parts, answer) = response.into_parts();
                        match answer.bytes().await {
                            Ok(bytes) => {
                                if status.is_success() {
                                    Counters::add(&self.counters.bytes, bytes.len() as u64);
                                } else {
                                    Counters::add(&self.counters.failures, 1);
                                }
                                let body = HttpResponseBody::from(bytes);
                                return Ok(HttpResponse::from_parts(parts, body));
                            }
                            Err(e) if transient_transport(e.kind(), safe) => {
                                Transient::Transport(e)
                            }
                            Err(e) => return Err(self.given_up(e)),
                        }
                    }
                }
                Err(e) if transient_transport(e.kind(), safe) => Transient::Transport(e),
                Err(e) => return Err(self.given_up(e)),
            };
            if retries >= self.policy.max_retries {
                Counters::add(&self.counters.failures, 1);
                let (kind, cause) = match failure {
                    Transient::Status(words) => (
                        HttpErrorKind::Unknown,
                        format!("the server answered {words}"),
                    ),
                    Transient::Transport(e) => (e.kind(), causes(&e)),
                };
                return Err(HttpError::new(kind, GaveUp { retries, cause }));
            }
            retries += 1;
            Counters::add(&self.counters.retries, 1);
            tokio::time::sleep(self.policy.delay(retries)).await;
        }
    }

    /// `error`, counted as a request given up on.
    fn given_up(&self, error: HttpError) -> HttpError {
        Counters::add(&self.counters.failures, 1);
        error
    }
}

impl HttpService for Retrying {
    fn call<'s, 'f>(
        &'s self,
        request: HttpRequest,
    ) -> Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + 'f>>
    where
        's: 'f,
        Self: 'f,
    {
        Box::pin(self.send(request))
    }
}

/// An answer another try may change: a server error (but 501 Not
/// Implemented and 505 HTTP Version Not Supported), 429 Too Many Requests,
/// 408 Request Timeout.
fn transient_status(status: u16) -> bool {
    matches!(status, 408 | 429) || ((500..600).contains(&status) && !matches!(status, 501 | 505))
}

/// A transport failure another try may not have: the request was not sent
/// (any request), or it timed out or was cut off (a read, which is safe to
/// send again).
fn transient_transport(kind: HttpErrorKind, safe: bool) -> bool {
    match kind {
        HttpErrorKind::Connect | HttpErrorKind::Request => true,
        HttpErrorKind::Timeout | HttpErrorKind::Interrupted => safe,
        _ => false,
    }
}

/// An error and its causes, joined by `: `, each said once.
pub(crate) fn causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(error) = next {
        let said = error.to_string();
        // A wrapper often repeats its cause's words in its own.
        if !words.iter().any(|w| w.contains(&said)) {
            words.push(said);
        }
        next = error.source();
    }
    words.join(": ")
}

/// A request still failing transiently after the last retry.
#[derive(Debug)]
pub(crate) struct GaveUp {
    /// How many times it was sent again.
    pub(crate) retries: u32,
    /// The last failure, in words.
    pub(crate) cause: String,
}

impl std::fmt::Display for GaveUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "still failing after {} {}: {}",
            self.retries,
            if self.retries == 1 {
                "retry"
            } else {
                "retries"
            },
            self.cause
        )
    }
}

impl std::error::Error for GaveUp {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_up_to_the_cap_with_half_of_each_at_random() {
        let policy = RetryPolicy::new(8, Duration::from_millis(50), Duration::from_millis(300));
        let expected = [50, 100, 200, 300, 300, 300];
        for (retry, full) in (1..).zip(expected) {
            let full = Duration::from_millis(full);
            for _ in 0..20 {
                let delay = policy.delay(retry);
                assert!(
                    delay >= full / 2 && delay <= full,
                    "retry {retry}: {delay:?}"
                );
            }
        }
        // Far past the point where the doubling overflows.
        assert!(policy.delay(200) <= Duration::from_millis(300));
    }

    #[test]
    fn server_errors_throttling_and_dropped_connections_are_transient() {
        for status in [500, 502, 503, 504, 429, 408] {
            assert!(transient_status(status), "{status}");
        }
        for status in [400, 401, 403, 404, 412, 416, 501, 505] {
            assert!(!transient_status(status), "{status}");
        }
        assert!(transient_transport(HttpErrorKind::Connect, false));
        assert!(transient_transport(HttpErrorKind::Timeout, true));
        assert!(!transient_transport(HttpErrorKind::Timeout, false));
        assert!(!transient_transport(HttpErrorKind::Decode, true));
    }
}
