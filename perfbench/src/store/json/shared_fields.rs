//! The fields several JSON documents share: a benchmark's group, its
//! declared throughput, the read path and the `Bencher` method, each
//! written one way and read back with its checks.

use serde::{Deserialize, Serialize};

use super::decode_error::{bad, bad_because, DecodeError};
use super::loose_field::{Loose, MAX_COUNT};
use crate::analysis::standings::Membership;
use crate::counter::group::ReadPath;
use crate::measure::{BatchSize, Method, Throughput};

/// A benchmark's group as JSON: `{"arg", "member", "name"}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupRecord {
    /// The argument, where the member takes one.
    pub arg: Option<String>,
    /// The member's name.
    pub member: String,
    /// The group's name.
    pub name: String,
}

impl From<&Membership> for GroupRecord {
    fn from(m: &Membership) -> GroupRecord {
        GroupRecord {
            arg: m.arg.clone(),
            member: m.member.clone(),
            name: m.group.clone(),
        }
    }
}

/// The group a file holds: none where it holds none, else a [`GroupRecord`].
pub(crate) fn membership_of(v: Loose<GroupRecord>) -> Result<Option<Membership>, DecodeError> {
    match v {
        Loose::Missing => Ok(None),
        Loose::Wrong => Err(bad("group")),
        Loose::Is(g) => Ok(Some(Membership {
            group: g.name,
            member: g.member,
            arg: g.arg,
        })),
    }
}

/// The group of `m` as a file holds it (`null` where there is none).
pub(crate) fn group_json(m: Option<&Membership>) -> Loose<GroupRecord> {
    m.map_or(Loose::Missing, |m| Loose::Is(m.into()))
}

/// A declared throughput as JSON: `{"bytes": n}` or `{"elements": n}`, and
/// in JSON lines its rate per second with its interval (an interval open
/// above has no finite end: `null`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThroughputRecord {
    /// Bytes an iteration handles.
    #[serde(skip_serializing_if = "Loose::is_missing")]
    pub bytes: Loose<u64>,
    /// Elements an iteration handles.
    #[serde(skip_serializing_if = "Loose::is_missing")]
    pub elements: Loose<u64>,
    /// The rate, per second (JSON lines only).
    #[serde(skip_serializing_if = "Loose::is_missing")]
    pub per_second: Loose<f64>,
    /// The rate's interval (JSON lines only).
    #[serde(skip_serializing_if = "Loose::is_missing")]
    pub per_second_ci: Loose<(f64, Option<f64>)>,
}

impl From<Throughput> for ThroughputRecord {
    fn from(t: Throughput) -> ThroughputRecord {
        let (bytes, elements) = match t {
            Throughput::Bytes(n) => (Loose::Is(n), Loose::Missing),
            Throughput::Elements(n) => (Loose::Missing, Loose::Is(n)),
        };
        ThroughputRecord {
            bytes,
            elements,
            ..ThroughputRecord::default()
        }
    }
}

/// The throughput a file holds: of at most [`MAX_COUNT`] bytes or
/// elements an iteration.
pub(crate) fn throughput_of(v: Loose<ThroughputRecord>) -> Result<Option<Throughput>, DecodeError> {
    let t = match v {
        Loose::Missing => return Ok(None),
        v => v.ok(),
    };
    let amount = |n: Loose<u64>| n.ok().filter(|&n| n <= MAX_COUNT);
    match t.map(|t| (amount(t.bytes), amount(t.elements))) {
        Some((Some(n), None)) => Ok(Some(Throughput::Bytes(n))),
        Some((None, Some(n))) => Ok(Some(Throughput::Elements(n))),
        _ => Err(bad_because(
            "throughput",
            "not bytes or elements from 0 to 10^15",
        )),
    }
}

/// The read path a file names, `None` for none (`null` or left out), or
/// the error where it names none known.
pub(crate) fn read_path_of(v: Loose<Option<String>>) -> Result<Option<ReadPath>, DecodeError> {
    match v {
        Loose::Missing | Loose::Is(None) => Ok(None),
        v => {
            let name = v.ok().flatten();
            let path = ReadPath::ALL
                .into_iter()
                .find(|p| Some(p.name()) == name.as_deref());
            path.map(Some).ok_or_else(|| bad("read_path"))
        }
    }
}

/// Which `Bencher` method measured a result, as JSON lines and result
/// files write it: nothing for `iter` (as results from before methods were
/// recorded), else `method`, and `batch_size` for the `iter_batched` forms,
/// whose every batch is counted in a window the group is read around
/// (`measure::windows`).
pub(crate) fn method_json(method: Method) -> (Loose<Option<String>>, Loose<String>) {
    if method == Method::Iter {
        return (Loose::Missing, Loose::Missing);
    }
    let size = method.batch_size().map(BatchSize::name);
    (
        Loose::Is(Some(method.name().to_string())),
        size.map_or(Loose::Missing, Loose::Is),
    )
}

/// The method of a stored result on `threads`: `iter` where none is given
/// (files from before methods were recorded).
pub(crate) fn method_of(
    name: Loose<Option<String>>,
    batch_size: Loose<String>,
    threads: usize,
) -> Result<Method, DecodeError> {
    let size = match batch_size {
        Loose::Missing => None,
        v => Some(
            v.ok()
                .and_then(|s| BatchSize::from_name(&s))
                .ok_or_else(|| bad("batch_size"))?,
        ),
    };
    let null = matches!(name, Loose::Missing | Loose::Is(None));
    if null && size.is_none() {
        return Ok(Method::Iter);
    }
    name.ok()
        .flatten()
        .and_then(|name| Method::from_parts(&name, size, threads))
        .ok_or_else(|| bad("method"))
}
