//! Public-key login only, never a password: the agent's keys first, then
//! the target's identity file or ~/.ssh/id_ed25519, id_ecdsa, id_rsa.
//! Unencrypted files are tried before an encrypted one is asked for.

use super::session::HostHandler;
use super::{SshOptions, home_ssh, hostkey};
use crate::link::HostTarget;
use crate::link::error::LoginError;
use russh::client::Handle;
use russh::keys::agent::AgentIdentity;
use russh::keys::agent::client::AgentClient;
use russh::keys::{PrivateKey, PrivateKeyWithHashAlg};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(super) enum AuthEnd {
    /// No key was accepted; it says what was tried.
    Failed(LoginError),
    /// Only an encrypted file is left and the store lacks its passphrase.
    NeedsPassphrase(PathBuf),
    /// The connection went away during authentication.
    Lost(String),
    /// A passphrase was wrong; the text says which file.
    WrongPassphrase(PathBuf),
}

const DEFAULT_IDENTITIES: [&str; 3] = ["id_ed25519", "id_ecdsa", "id_rsa"];

/// The identity files a login to `target` tries after the agent's keys:
/// its own, else those of ~/.ssh/id_ed25519, id_ecdsa, id_rsa that exist.
pub fn identity_files(target: &HostTarget) -> Vec<PathBuf> {
    match &target.identity {
        Some(p) => vec![p.clone()],
        None => DEFAULT_IDENTITIES
            .iter()
            .filter_map(|n| home_ssh(n))
            .filter(|p| p.is_file())
            .collect(),
    }
}

enum Loaded {
    Key(Box<PrivateKey>),
    Encrypted,
    WrongPassphrase,
    Unreadable(String),
}

/// The most of an identity file strata reads: an OpenSSH RSA key of
/// 16,384 bits, the largest ssh-keygen makes, is about 12 kB.
pub const MAX_IDENTITY_BYTES: u64 = 64 * 1024;

/// A private key file's text as strata decodes it (OpenSSH, PEM or PuTTY),
/// with its passphrase if it has one.
pub fn decode_identity(
    text: &str,
    passphrase: Option<&str>,
) -> Result<PrivateKey, russh::keys::Error> {
    russh::keys::decode_secret_key(text, passphrase)
}

/// An identity file's key: a regular file of at most
/// [`MAX_IDENTITY_BYTES`], as every file the user names is read.
fn load_identity(path: &Path, passphrase: Option<&str>) -> Result<PrivateKey, russh::keys::Error> {
    let text = crate::core::userfile::read_text(path, MAX_IDENTITY_BYTES)?;
    decode_identity(&text, passphrase)
}

/// Key files are decoded on a blocking thread: bcrypt-pbkdf of an
/// encrypted key takes long enough to stall the other hosts' streams.
async fn load(path: &Path, passphrase: Option<zeroize::Zeroizing<String>>) -> Loaded {
    let p = path.to_path_buf();
    let had_passphrase = passphrase.is_some();
    let r = tokio::task::spawn_blocking(move || {
        load_identity(&p, passphrase.as_ref().map(|s| s.as_str()))
    })
    .await;
    match r {
        Ok(Ok(k)) => Loaded::Key(Box::new(k)),
        Ok(Err(_)) if had_passphrase => Loaded::WrongPassphrase,
        Ok(Err(russh::keys::Error::KeyIsEncrypted)) => Loaded::Encrypted,
        Ok(Err(e)) => Loaded::Unreadable(e.to_string()),
        Err(e) => Loaded::Unreadable(e.to_string()),
    }
}

/// The fingerprints of the keys the ssh-agent at `sock` offers, as a
/// login asks for them: what `strata check` counts.
pub async fn agent_keys(sock: &Path) -> Result<Vec<String>, String> {
    let mut agent = AgentClient::connect_uds(sock)
        .await
        .map_err(|e| format!("ssh-agent at {}: {e}", sock.display()))?;
    let ids = agent
        .request_identities()
        .await
        .map_err(|e| format!("ssh-agent at {}: {e}", sock.display()))?;
    Ok(ids
        .iter()
        .filter_map(|id| match id {
            AgentIdentity::PublicKey { key, .. } => Some(hostkey::fingerprint(key)),
            _ => None,
        })
        .collect())
}

pub(super) async fn authenticate(
    h: &mut Handle<HostHandler>,
    target: &HostTarget,
    opts: &SshOptions,
) -> Result<(), AuthEnd> {
    let user = target.user.as_str();
    let mut tried: Vec<String> = Vec::new();
    // Only RSA keys need it; None = the server did not say (old sshd).
    let rsa_hash = h.best_supported_rsa_hash().await.ok().flatten().flatten();
    if let Some(sock) = &opts.agent_socket {
        match AgentClient::connect_uds(sock).await {
            Err(e) => tried.push(format!("ssh-agent at {}: {e}", sock.display())),
            Ok(mut agent) => match agent.request_identities().await {
                Err(e) => tried.push(format!("ssh-agent at {}: {e}", sock.display())),
                Ok(ids) => {
                    for id in ids {
                        let AgentIdentity::PublicKey { key, .. } = id else {
                            continue;
                        };
                        let fp = hostkey::fingerprint(&key);
                        let hash = key.algorithm().is_rsa().then_some(rsa_hash).flatten();
                        match h
                            .authenticate_publickey_with(user, key, hash, &mut agent)
                            .await
                        {
                            Ok(r) if r.success() => return Ok(()),
                            Ok(_) => tried.push(format!("agent key {fp} refused")),
                            Err(e) => tried.push(format!("agent key {fp}: {e}")),
                        }
                        if h.is_closed() {
                            return Err(AuthEnd::Lost(format!(
                                "the server closed the connection after {}",
                                tried.join("; ")
                            )));
                        }
                    }
                }
            },
        }
    }
    let mut encrypted: Vec<PathBuf> = Vec::new();
    for path in identity_files(target) {
        let passphrase = opts.passphrases.get(&path);
        let key = match load(&path, passphrase.clone()).await {
            Loaded::Key(k) => k,
            Loaded::Encrypted => {
                encrypted.push(path);
                continue;
            }
            Loaded::WrongPassphrase => {
                if let Some(wrong) = &passphrase {
                    opts.passphrases.forget_if(&path, wrong);
                }
                return Err(AuthEnd::WrongPassphrase(path));
            }
            Loaded::Unreadable(e) => {
                tried.push(format!("identity file {}: {e}", path.display()));
                continue;
            }
        };
        let hash = key.algorithm().is_rsa().then_some(rsa_hash).flatten();
        match h
            .authenticate_publickey(user, PrivateKeyWithHashAlg::new(Arc::new(*key), hash))
            .await
        {
            Ok(r) if r.success() => return Ok(()),
            Ok(_) => tried.push(format!("{} refused", path.display())),
            Err(e) => {
                return Err(AuthEnd::Lost(format!(
                    "while offering {}: {e}",
                    path.display()
                )));
            }
        }
    }
    if let Some(path) = encrypted.into_iter().next() {
        if opts.interactive {
            return Err(AuthEnd::NeedsPassphrase(path));
        }
        return Err(AuthEnd::Failed(LoginError::Encrypted { identity: path }));
    }
    if tried.is_empty() {
        tried.push("no ssh-agent (SSH_AUTH_SOCK) and no identity file (~/.ssh/id_ed25519, id_ecdsa, id_rsa)".into());
    }
    Err(AuthEnd::Failed(LoginError::NoKeyAccepted {
        user: user.to_string(),
        host: target.label.clone(),
        tried,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_that_is_a_device_or_fifo_is_refused_at_once() {
        let said =
            crate::core::userfile::testing::fifo_and_zero(|p| match load_identity(p, None) {
                Ok(_) => "a key".to_owned(),
                Err(e) => e.to_string(),
            });
        assert!(said[0].contains("is a FIFO"), "{said:?}");
        assert!(said[1].contains("is a device"), "{said:?}");
    }
}
