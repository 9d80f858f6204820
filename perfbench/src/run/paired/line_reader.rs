//! Lines from another process, each read no further than a limit: the
//! requests a serving build reads ([`read_line`]), and the replies the
//! driving build reads on a thread of their own ([`Lines`]), so that it
//! can wait for each with a timeout (a blocking read of a pipe has none).

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// Why no line was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unread {
    /// The other process ended its output (it ended, most likely) before a
    /// whole line; whatever it wrote of one is here.
    Ended(Vec<u8>),
    /// More than the limit came without a line break.
    TooLong,
    /// No whole line came in the time given.
    TimedOut,
    /// Reading failed.
    Failed(String),
}

/// The next line of `from` without its line break, reading at most
/// `limit` bytes and the line break.
pub fn read_line(from: &mut impl BufRead, limit: usize) -> Result<Vec<u8>, Unread> {
    let mut line = Vec::new();
    let most = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    match from.take(most).read_until(b'\n', &mut line) {
        Err(e) => Err(Unread::Failed(e.to_string())),
        Ok(_) if line.last() == Some(&b'\n') => {
            line.pop();
            Ok(line)
        }
        Ok(_) if line.len() > limit => Err(Unread::TooLong),
        Ok(_) => Err(Unread::Ended(line)),
    }
}

/// The lines of a process's output, read on a thread of their own, one
/// each time one is asked for. After a [`Unread::TimedOut`] its lines are
/// out of step: the process is to be given up.
pub struct Lines {
    /// The limit of each line asked for.
    asks: Sender<usize>,
    /// Each line read, or why not.
    lines: Receiver<Result<Vec<u8>, Unread>>,
}

impl Lines {
    /// The lines of `from`, read on a new thread, which ends at the end of
    /// `from`, at an error, or once these lines are dropped and the line
    /// it is reading ends.
    pub fn of(from: impl Read + Send + 'static) -> std::io::Result<Lines> {
        let (asks, asked) = channel::<usize>();
        let (sent, lines) = channel();
        let mut from = BufReader::new(from);
        std::thread::Builder::new()
            .name("paired-replies".into())
            .spawn(move || {
                for limit in asked {
                    let line = read_line(&mut from, limit);
                    let last = line.is_err();
                    if sent.send(line).is_err() || last {
                        break;
                    }
                }
            })?;
        Ok(Lines { asks, lines })
    }

    /// The next line, of at most `limit` bytes, within `wait`.
    pub fn next(&self, limit: usize, wait: Duration) -> Result<Vec<u8>, Unread> {
        if self.asks.send(limit).is_err() {
            return Err(Unread::Ended(Vec::new()));
        }
        match self.lines.recv_timeout(wait) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => Err(Unread::TimedOut),
            Err(RecvTimeoutError::Disconnected) => Err(Unread::Ended(Vec::new())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_up_to_its_limit_and_no_further() {
        let mut text: &[u8] = b"12345\n123456\n";
        assert_eq!(read_line(&mut text, 5), Ok(b"12345".to_vec()));
        assert_eq!(read_line(&mut text, 5), Err(Unread::TooLong));
        // What is left of the long line was not read.
        assert_eq!(text, b"\n");
        let mut cut: &[u8] = b"abc";
        assert_eq!(read_line(&mut cut, 5), Err(Unread::Ended(b"abc".to_vec())));
        assert_eq!(read_line(&mut cut, 5), Err(Unread::Ended(Vec::new())));
    }

    #[test]
    fn lines_come_within_the_wait_or_are_said_late() {
        // A writer that writes one line and part of another, then nothing
        // (it is held open until the end of the test).
        let (reader, writer) = pipe();
        writer.send(b"one\ntwo".to_vec()).unwrap();
        let lines = Lines::of(reader).unwrap();
        assert_eq!(lines.next(10, Duration::from_secs(60)), Ok(b"one".to_vec()));
        assert_eq!(
            lines.next(10, Duration::from_millis(50)),
            Err(Unread::TimedOut)
        );
        drop(writer);
    }

    #[test]
    fn the_end_of_the_output_is_said_with_what_came_of_a_line() {
        let (reader, writer) = pipe();
        writer.send(b"half".to_vec()).unwrap();
        drop(writer);
        let lines = Lines::of(reader).unwrap();
        let wait = Duration::from_secs(60);
        assert_eq!(lines.next(10, wait), Err(Unread::Ended(b"half".to_vec())));
        assert_eq!(lines.next(10, wait), Err(Unread::Ended(Vec::new())));
    }

    /// Bytes sent on a channel, read as a pipe is: a read blocks until some
    /// come, and ends where the sender is dropped.
    struct Piped(std::sync::mpsc::Receiver<Vec<u8>>, Vec<u8>);

    impl Read for Piped {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.1.is_empty() {
                match self.0.recv() {
                    Ok(bytes) => self.1 = bytes,
                    Err(_) => return Ok(0),
                }
            }
            let n = buf.len().min(self.1.len());
            buf[..n].copy_from_slice(&self.1[..n]);
            self.1.drain(..n);
            Ok(n)
        }
    }

    /// A [`Piped`] reader and its writer.
    fn pipe() -> (Piped, Sender<Vec<u8>>) {
        let (writer, reader) = channel();
        (Piped(reader, Vec::new()), writer)
    }
}
