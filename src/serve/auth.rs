//! Basic auth against the web config's bcrypt hashes, as exporter-toolkit
//! checks it: an unknown user is checked against a hash of its own so that
//! timing does not tell which users exist, the comparison of the hashes is
//! constant-time (bcrypt's `verify`), and a verified answer is cached so
//! that a scrape every second, or a flood, costs one bcrypt, not one each.
//!
//! bcrypt is slow by design (70 ms at cost 10): it runs on tokio's blocking
//! threads, one at a time, so that a flood of wrong passwords takes at
//! most one core and never the thread that answers cached scrapes.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use zeroize::Zeroizing;

/// The most answers kept: a few users each with their password, plus the
/// wrong passwords last tried.
const CACHE_CAP: usize = 256;

/// The password of the hash an unknown user is checked against: never
/// compared with anything but itself, so any text will do.
const DECOY: &str = "strata: no such user";

pub struct Auth {
    users: BTreeMap<String, String>,
    /// A hash of [`DECOY`] at the highest cost among the users' hashes.
    decoy: String,
    /// SHA-256 of (user, hash, password) → whether the password matched.
    /// A digest, not the password, is what stays in memory.
    cache: Mutex<HashMap<[u8; 32], bool>>,
    bcrypt: tokio::sync::Semaphore,
}

/// The user and password of an `Authorization: Basic` header; None when
/// it is no such header. The password is wiped when dropped.
pub fn basic_credentials(header: &[u8]) -> Option<(String, Zeroizing<Vec<u8>>)> {
    use base64::Engine as _;
    let header = std::str::from_utf8(header).ok()?.trim();
    let (scheme, encoded) = header.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = Zeroizing::new(
        base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .ok()?,
    );
    let colon = decoded.iter().position(|&b| b == b':')?;
    let user = std::str::from_utf8(&decoded[..colon]).ok()?.to_string();
    Some((user, Zeroizing::new(decoded[colon + 1..].to_vec())))
}

impl Auth {
    /// None when the config has no users: every request is let in.
    pub fn new(users: BTreeMap<String, String>) -> Result<Option<Arc<Auth>>, String> {
        if users.is_empty() {
            return Ok(None);
        }
        let cost = users
            .values()
            .filter_map(|h| h.parse::<bcrypt::HashParts>().ok())
            .map(|p| p.get_cost())
            .max()
            .unwrap_or(bcrypt::DEFAULT_COST);
        let decoy = bcrypt::hash(DECOY, cost).map_err(|e| format!("bcrypt: {e}"))?;
        Ok(Some(Arc::new(Auth {
            users,
            decoy,
            cache: Mutex::new(HashMap::new()),
            bcrypt: tokio::sync::Semaphore::new(1),
        })))
    }

    /// Whether the request's Authorization header names a user with its
    /// password.
    pub async fn allows(self: &Arc<Self>, header: Option<&[u8]>) -> bool {
        let Some((user, password)) = header.and_then(basic_credentials) else {
            return false;
        };
        let (known, hash) = match self.users.get(&user) {
            Some(h) => (true, h.clone()),
            None => (false, self.decoy.clone()),
        };
        let key = cache_key(&user, &hash, &password);
        if let Some(&ok) = self.lock().get(&key) {
            return ok && known;
        }
        let Ok(_turn) = self.bcrypt.acquire().await else {
            return false;
        };
        // another request may have verified the same while this one waited
        if let Some(&ok) = self.lock().get(&key) {
            return ok && known;
        }
        let ok = tokio::task::spawn_blocking(move || {
            bcrypt::verify(&password[..], &hash).unwrap_or(false)
        })
        .await
        .unwrap_or(false);
        let mut cache = self.lock();
        if cache.len() >= CACHE_CAP {
            // wrong passwords go first, then everything
            cache.retain(|_, ok| *ok);
            if cache.len() >= CACHE_CAP {
                cache.clear();
            }
        }
        cache.insert(key, ok);
        ok && known
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], bool>> {
        // the map holds no invariant a panic elsewhere could break
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn cache_key(user: &str, hash: &str, password: &[u8]) -> [u8; 32] {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for part in [user.as_bytes(), hash.as_bytes(), password] {
        ctx.update(&(part.len() as u64).to_le_bytes());
        ctx.update(part);
    }
    let mut key = [0u8; 32];
    key.copy_from_slice(ctx.finish().as_ref());
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    fn basic(s: &str) -> Vec<u8> {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(s)
        )
        .into_bytes()
    }

    #[test]
    fn credentials_parse() {
        let (u, p) = basic_credentials(&basic("alice:pa:ss")).unwrap();
        assert_eq!((u.as_str(), &p[..]), ("alice", &b"pa:ss"[..]));
        let (u, p) = basic_credentials(b"basic YTo=").unwrap();
        assert_eq!((u.as_str(), &p[..]), ("a", &b""[..]));
        for bad in [
            &b"Bearer abc"[..],
            b"Basic",
            b"Basic !!!",
            b"Basic YWxpY2U=",
            b"\xff",
        ] {
            assert!(basic_credentials(bad).is_none(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn right_wrong_and_unknown() {
        let users = BTreeMap::from([("alice".to_string(), bcrypt::hash("secret", 4).unwrap())]);
        let auth = Auth::new(users).unwrap().unwrap();
        assert!(auth.allows(Some(&basic("alice:secret"))).await);
        assert!(!auth.allows(Some(&basic("alice:Secret"))).await);
        assert!(!auth.allows(Some(&basic("bob:secret"))).await);
        // the decoy's own password does not let an unknown user in
        assert!(!auth.allows(Some(&basic(&format!("bob:{DECOY}")))).await);
        assert!(!auth.allows(None).await);
        // answered from the cache the second time
        assert_eq!(auth.lock().len(), 4);
        assert!(auth.allows(Some(&basic("alice:secret"))).await);
        assert_eq!(auth.lock().len(), 4);
        assert!(Auth::new(BTreeMap::new()).unwrap().is_none());
    }
}
