//! The keys of `#[perfbench(…)]`: what the benchmarks are (`args`,
//! `types`, `threads`), how they are grouped and declared (`group`, `throughput`,
//! `ignore`), and their own measurement settings (`sample_count`, or
//! Criterion's `sample_size`, `warm_up_time`, `measurement_time`, `events`,
//! `mode`).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Error, Expr, ExprArray, Ident, Lit, LitStr, Token, Type};

use crate::expand::type_name;

/// The keys the attribute takes, as the unknown-key error lists them.
const KEYS: &str = "`args`, `types`, `threads`, `group`, `throughput`, `ignore`, \
                    `sample_count`, `warm_up_time`, `measurement_time`, `events` or `mode`";

/// The keys of what a benchmark is, for the nearest one to an unknown key.
pub(crate) const BENCHMARK_KEYS: &[&str] =
    &["args", "types", "threads", "group", "throughput", "ignore"];

/// The keys of a benchmark's own measurement settings, which a group's
/// attribute takes too, and Criterion's names for them.
pub(crate) const SETTING_KEYS: &[&str] = &[
    "sample_count",
    "sample_size",
    "warm_up_time",
    "measurement_time",
    "events",
    "mode",
];

/// Criterion's names for keys, and the key each stands for: users arrive
/// with `group.sample_size(n)` in their fingers, as `--sample-size` on the
/// command line.
const ALIASES: &[(&str, &str)] = &[("sample_size", "sample_count")];

/// The most samples a benchmark may take, as perfbench's
/// `run::cli::MAX_SAMPLE_COUNT` (this crate cannot use perfbench's).
const MAX_SAMPLE_COUNT: u64 = 1_000_000;

/// The longest time, in seconds, as perfbench's `run::cli::MAX_SECONDS`.
const MAX_SECONDS: f64 = 86_400.0;

/// What the attribute's keys asked for.
#[derive(Default)]
pub(crate) struct AttributeOptions {
    /// The `args = …` key and its value.
    pub(crate) args: Option<(Span, Args)>,
    /// The `types = [...]` key and its types.
    pub(crate) types: Option<(Span, Vec<Type>)>,
    /// `threads = [...]`: the thread counts to run the routine on at once.
    pub(crate) threads: Option<Vec<usize>>,
    /// `bytes` or `elements`.
    pub(crate) throughput: Option<Ident>,
    /// `ignore`, or `#[ignore]` on the function: skipped unless asked for.
    pub(crate) ignore: bool,
    /// `group = "name"`.
    pub(crate) group: Option<LitStr>,
    /// `sample_count = N`, as an expression of type `u64`.
    pub(crate) sample_count: Option<TokenStream>,
    /// `warm_up_time = …`, as an expression of type `Duration`.
    pub(crate) warm_up_time: Option<TokenStream>,
    /// `measurement_time = …`, as an expression of type `Duration`.
    pub(crate) measurement_time: Option<TokenStream>,
    /// `events = "…"`, in perf's syntax (checked when the run starts).
    pub(crate) events: Option<LitStr>,
    /// `mode = "per-iter"` (true) or `"batch"` (false).
    pub(crate) per_iter: Option<bool>,
}

/// The value of `args`.
pub(crate) enum Args {
    /// A list written out, `[a, b, c]`: each element is evaluated alone,
    /// and errors point at it.
    List(Vec<Expr>),
    /// Any other expression whose value iterates over the arguments: a
    /// constant, a range, a function call.
    Iterable(Expr),
}

/// Parses the attribute's arguments, stopping at the first bad key.
pub(crate) fn parse(attr: TokenStream) -> syn::Result<AttributeOptions> {
    let mut options = AttributeOptions::default();
    let parser = syn::meta::parser(|meta| options.parse_key(meta));
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(options)
}

impl AttributeOptions {
    /// Parses one `key = value`.
    fn parse_key(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let written = new_key(&meta, |key| self.has(key))?;
        let key = canonical(&written);
        let span = meta.path.span();
        match key {
            "args" => self.args = Some((span, parse_args(&meta)?)),
            "types" => self.types = Some((span, parse_types(&meta)?)),
            "threads" => self.threads = Some(parse_threads(&meta)?),
            "throughput" => self.throughput = Some(parse_throughput(&meta)?),
            "ignore" => self.ignore = parse_flag(&meta, "ignore")?,
            "group" => self.group = Some(parse_group(&meta)?),
            "sample_count" => self.sample_count = Some(parse_sample_count(&meta)?),
            "warm_up_time" => self.warm_up_time = Some(parse_duration(&meta)?),
            "measurement_time" => self.measurement_time = Some(parse_duration(&meta)?),
            "events" => self.events = Some(parse_events(&meta)?),
            "mode" => self.per_iter = Some(parse_mode(&meta)?),
            _ => {
                let names: Vec<&str> = BENCHMARK_KEYS.iter().chain(SETTING_KEYS).copied().collect();
                return Err(meta.error(unknown_key(key, &names, KEYS)));
            }
        }
        Ok(())
    }

    /// Whether `key` (as [`canonical`] names it) was already given.
    pub(crate) fn has(&self, key: &str) -> bool {
        match key {
            "args" => self.args.is_some(),
            "types" => self.types.is_some(),
            "threads" => self.threads.is_some(),
            "throughput" => self.throughput.is_some(),
            "ignore" => self.ignore,
            "group" => self.group.is_some(),
            "sample_count" => self.sample_count.is_some(),
            "warm_up_time" => self.warm_up_time.is_some(),
            "measurement_time" => self.measurement_time.is_some(),
            "events" => self.events.is_some(),
            "mode" => self.per_iter.is_some(),
            _ => false,
        }
    }
}

/// The key of `meta` as written (without spaces, so that a path key is
/// named as written: `foo::bar`); an error where `given` says it (under
/// either of its names) was given already, rather than the last one
/// silently winning.
pub(crate) fn new_key(
    meta: &ParseNestedMeta<'_>,
    given: impl Fn(&str) -> bool,
) -> syn::Result<String> {
    let written = meta.path.to_token_stream().to_string().replace(' ', "");
    if given(canonical(&written)) {
        return Err(meta.error(duplicate(&written)));
    }
    Ok(written)
}

/// The key `written` stands for: itself, or the key a Criterion name of
/// [`ALIASES`] is an alias of.
pub(crate) fn canonical(written: &str) -> &str {
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == written)
        .map_or(written, |(_, key)| key)
}

/// The error for a key given twice (under either of its names).
fn duplicate(written: &str) -> String {
    match ALIASES.iter().find(|(a, k)| *a == written || *k == written) {
        Some((alias, key)) => {
            format!("duplicate key `{written}` (`{alias}` is Criterion's name for `{key}`)")
        }
        None => format!("duplicate key `{written}`"),
    }
}

/// The error for an unknown key: the nearest of `names` where one is a
/// typo away, else the list `expected`.
pub(crate) fn unknown_key(key: &str, names: &[&str], expected: &str) -> String {
    match nearest(key, names) {
        Some(near) => format!("unknown key `{key}` (did you mean `{near}`?)"),
        None => format!("unknown key `{key}` (expected {expected})"),
    }
}

/// The name of `names` nearest to `word`, if it is a typo away: perfbench's
/// rule for options and events (`counter::event::close_names`, which this
/// crate cannot use): within an edit distance of a third of the name's
/// length (one under six characters), ignoring case, a swap of neighbours
/// counting as one edit.
fn nearest<'a>(word: &str, names: &[&'a str]) -> Option<&'a str> {
    let word = word.to_lowercase();
    names
        .iter()
        .map(|n| (strsim::osa_distance(&word, &n.to_lowercase()), *n))
        .filter(|&(d, n)| d <= (n.chars().count() / 3).max(1))
        .min()
        .map(|(_, n)| n)
}

/// A key that takes no value, such as `ignore`.
fn parse_flag(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        return Err(meta.error(format!("`{key}` takes no value: `#[perfbench({key})]`")));
    }
    Ok(true)
}

/// The value of `args = …`: a list written out, or any expression that
/// iterates over the arguments.
fn parse_args(meta: &ParseNestedMeta<'_>) -> syn::Result<Args> {
    let value: Expr = meta.value()?.parse()?;
    match value {
        Expr::Array(ExprArray { ref elems, .. }) if elems.is_empty() => Err(Error::new(
            value.span(),
            "`args` needs at least one argument",
        )),
        Expr::Array(array) => {
            let args: Vec<Expr> = array.elems.into_iter().collect();
            let lit = |arg: &Expr| literal(arg).map(|lit| lit.to_token_stream().to_string());
            twice(&args, lit, "argument")?;
            Ok(Args::List(args))
        }
        Expr::Lit(_) => Err(Error::new(
            value.span(),
            "`args` takes a list (`args = [1, 2, 3]`) or an expression that iterates over the arguments (`args = SIZES`)",
        )),
        other => Ok(Args::Iterable(other)),
    }
}

/// The value of `types = [A, B, …]`.
fn parse_types(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<Type>> {
    let content;
    let value = meta.value()?;
    syn::bracketed!(content in value);
    let types = Punctuated::<Type, Token![,]>::parse_terminated(&content)?;
    if types.is_empty() {
        return Err(meta.error("`types` needs at least one type: `types = [u8, u64]`"));
    }
    let types: Vec<Type> = types.into_iter().collect();
    twice(&types, |ty| Some(type_name(ty)), "type")?;
    Ok(types)
}

/// An error at the second of two items of a list that read alike as
/// `written` gives them (`None` for an item it cannot tell): their
/// benchmarks would share an id.
fn twice<T: ToTokens>(
    items: &[T],
    written: impl Fn(&T) -> Option<String>,
    what: &str,
) -> syn::Result<()> {
    let names: Vec<Option<String>> = items.iter().map(written).collect();
    for (i, item) in items.iter().enumerate() {
        let Some(name) = &names[i] else { continue };
        if names[..i].contains(&names[i]) {
            return Err(Error::new_spanned(
                item,
                format!("{what} `{name}` is listed twice: its benchmarks would share an id"),
            ));
        }
    }
    Ok(())
}

/// The value of `threads = [1, 2, 4]`: thread counts written out, each a
/// whole number above 0, none twice (their benchmarks would share an id).
fn parse_threads(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<usize>> {
    let value: Expr = meta.value()?.parse()?;
    let list = match &value {
        Expr::Array(list) if !list.elems.is_empty() => list,
        _ => {
            return Err(Error::new(
                value.span(),
                "`threads` takes a list of thread counts: `threads = [1, 2, 4]`",
            ))
        }
    };
    let mut counts = Vec::new();
    for count in &list.elems {
        let n = match literal(count) {
            Some(Lit::Int(n)) => n.base10_parse::<usize>().ok().filter(|&n| n > 0),
            _ => None,
        };
        let n = n.ok_or_else(|| {
            Error::new(
                count.span(),
                "a thread count is a whole number above 0, written out",
            )
        })?;
        if counts.contains(&n) {
            return Err(Error::new(
                count.span(),
                format!("thread count {n} is listed twice"),
            ));
        }
        counts.push(n);
    }
    Ok(counts)
}

/// The value of `throughput = bytes | elements`, kept as an ident so that
/// errors about it, and the generated call, point at it.
fn parse_throughput(meta: &ParseNestedMeta<'_>) -> syn::Result<Ident> {
    let kind: Ident = meta.value()?.parse()?;
    if kind != "bytes" && kind != "elements" {
        return Err(Error::new(
            kind.span(),
            "`throughput` is `bytes` or `elements`",
        ));
    }
    Ok(kind)
}

/// The value of `group = "name"`: a name that is not empty.
fn parse_group(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    text_value(
        meta,
        "`group` takes a name in quotes: `group = \"sorting\"`",
        "`group` needs a name",
    )
}

/// The value of `events = "…"`: a list that is not empty. The events are
/// parsed when the run starts, where an unknown one is an error naming the
/// benchmark.
fn parse_events(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    text_value(
        meta,
        "`events` takes a list in quotes, as `--events` does: `events = \"instructions,page-faults\"`",
        "`events` needs at least one event",
    )
}

/// A key's value in quotes that is not blank; `form` is the error where
/// it is not in quotes, `blank` where it is blank.
fn text_value(meta: &ParseNestedMeta<'_>, form: &str, blank: &str) -> syn::Result<LitStr> {
    let text: LitStr = meta
        .value()?
        .parse()
        .map_err(|e| Error::new(e.span(), form))?;
    if text.value().trim().is_empty() {
        return Err(Error::new(text.span(), blank));
    }
    Ok(text)
}

/// The value of `mode = "batch" | "per-iter"`, as `--mode` takes it.
fn parse_mode(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    let mode: LitStr = meta.value()?.parse()?;
    match mode.value().as_str() {
        "batch" => Ok(false),
        "per-iter" => Ok(true),
        _ => Err(Error::new(
            mode.span(),
            "`mode` is \"batch\" or \"per-iter\", as `--mode` takes it",
        )),
    }
}

/// The value of `sample_count = N`: a whole number above 0, checked here
/// where it is written out, or an expression of type `u64`.
fn parse_sample_count(meta: &ParseNestedMeta<'_>) -> syn::Result<TokenStream> {
    let value: Expr = meta.value()?.parse()?;
    if let Some(Lit::Int(n)) = literal(&value) {
        match n.base10_parse::<u64>() {
            Ok(n @ 1..=MAX_SAMPLE_COUNT) => return Ok(quote_spanned!(value.span()=> #n)),
            _ => {
                return Err(Error::new(
                    n.span(),
                    "`sample_count` takes a whole number from 1 to 1,000,000",
                ))
            }
        }
    }
    Ok(quote_spanned!(value.span()=> #value))
}

/// The value of a time: seconds written out (`0.5`, `2`), checked here, or
/// an expression of type `std::time::Duration`.
fn parse_duration(meta: &ParseNestedMeta<'_>) -> syn::Result<TokenStream> {
    let value: Expr = meta.value()?.parse()?;
    if let Expr::Unary(syn::ExprUnary {
        op: syn::UnOp::Neg(_),
        ..
    }) = value
    {
        return Err(Error::new(value.span(), "a time cannot be negative"));
    }
    let seconds = match literal(&value) {
        Some(Lit::Int(n)) => n.base10_parse::<f64>(),
        Some(Lit::Float(f)) => f.base10_parse::<f64>(),
        Some(other) => Err(Error::new(other.span(), "not a number")),
        None => {
            return Ok(quote_spanned! {value.span()=>
                { let time: ::core::time::Duration = #value; time }
            })
        }
    };
    match seconds {
        Ok(s) if s.is_finite() && (0.0..=MAX_SECONDS).contains(&s) => {
            let nanos = (s * 1e9).round() as u64;
            Ok(quote!(::core::time::Duration::from_nanos(#nanos)))
        }
        _ => Err(Error::new(
            value.span(),
            "a time is seconds from 0 to 86400 (`0.5`) or a `Duration` (`Duration::from_millis(500)`)",
        )),
    }
}

/// The literal `value` is, if it is one.
fn literal(value: &Expr) -> Option<&Lit> {
    match value {
        Expr::Lit(lit) => Some(&lit.lit),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criterion_names_stand_for_their_keys() {
        assert_eq!(canonical("sample_size"), "sample_count");
        assert_eq!(canonical("sample_count"), "sample_count");
        assert_eq!(canonical("foo"), "foo");
    }

    #[test]
    fn an_unknown_key_names_the_nearest_only_when_a_typo_away() {
        let keys = [BENCHMARK_KEYS, SETTING_KEYS].concat();
        assert_eq!(nearest("sample_cuont", &keys), Some("sample_count"));
        assert_eq!(nearest("Warm_Up_Tme", &keys), Some("warm_up_time"));
        assert_eq!(nearest("arg", &keys), Some("args"));
        assert_eq!(nearest("foo", &keys), None);
        assert_eq!(nearest("iterations", &keys), None);
    }
}
