//! A one-time token a parent hands its child on a socket, to tell the
//! child it was started by that parent: the parent writes a random token
//! into its end of a socket pair, gives the child the other end (as its
//! stdin) and the token in a variable. A variable alone, which anyone
//! starting the program can set, proves nothing; a socket already holding
//! the same token is what only the parent arranges.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, BorrowedFd};

/// A token's length: 16 random bytes in hex.
pub const TOKEN_LEN: usize = 32;

/// A fresh random token of [`TOKEN_LEN`] hex digits, from `getrandom(2)`,
/// or `/dev/urandom` where that call is missing.
pub fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; TOKEN_LEN / 2];
    // SAFETY: getrandom writes at most `bytes.len()` bytes into `bytes`.
    let got = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if got != bytes.len() as isize {
        std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    }
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `fd` is a socket whose next bytes are `token`, which are then
/// read. Never waits, and reads nothing from anything else: a terminal, a
/// pipe or a file is no socket (`ENOTSOCK`), an empty socket answers
/// `EAGAIN`, and other bytes are only peeked at.
pub fn take(fd: BorrowedFd<'_>, token: &[u8]) -> bool {
    let mut buf = [0u8; TOKEN_LEN];
    if token.len() != TOKEN_LEN {
        return false;
    }
    let flags = libc::MSG_DONTWAIT;
    // SAFETY: recv writes at most `buf.len()` bytes into `buf`.
    let peeked = unsafe {
        libc::recv(
            fd.as_raw_fd(),
            buf.as_mut_ptr().cast(),
            buf.len(),
            flags | libc::MSG_PEEK,
        )
    };
    if peeked != TOKEN_LEN as isize || buf != token {
        return false;
    }
    // SAFETY: as above.
    let taken = unsafe { libc::recv(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), flags) };
    taken == TOKEN_LEN as isize
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;

    #[test]
    fn tokens_are_hex_and_differ() {
        let (a, b) = (random_token().unwrap(), random_token().unwrap());
        assert_eq!(a.len(), TOKEN_LEN);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn only_a_socket_holding_the_token_gives_it_and_nothing_else_is_read() {
        let token = random_token().unwrap();
        let (mut ours, mut theirs) = UnixStream::pair().unwrap();
        // Empty: no wait.
        assert!(!take(theirs.as_fd(), token.as_bytes()));
        write!(ours, "{token}next").unwrap();
        let other = random_token().unwrap();
        assert!(!take(theirs.as_fd(), other.as_bytes()));
        assert!(!take(theirs.as_fd(), b"short"));
        assert!(take(theirs.as_fd(), token.as_bytes()));
        drop(ours);
        let mut rest = String::new();
        theirs.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "next");
        // Other bytes first: left unread.
        let (mut ours, mut theirs) = UnixStream::pair().unwrap();
        write!(ours, "x{token}").unwrap();
        drop(ours);
        assert!(!take(theirs.as_fd(), token.as_bytes()));
        let mut rest = String::new();
        theirs.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, format!("x{token}"));
    }

    #[test]
    fn a_file_is_no_socket_and_is_not_read() {
        let token = random_token().unwrap();
        let dir = crate::kernel::scratch_dir::ScratchDir::new("handoff");
        dir.file("token", &token);
        let path = dir.root().join("token");
        let mut file = std::fs::File::open(&path).unwrap();
        assert!(!take(file.as_fd(), token.as_bytes()));
        let mut read = String::new();
        file.read_to_string(&mut read).unwrap();
        assert_eq!(read, token);
    }
}
