//! The keys of `#[perfbench(…)]`: `args = [...]`, `throughput = …` and
//! `ignore`.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Error, Expr, Ident};

/// What the attribute's keys asked for.
#[derive(Default)]
pub(crate) struct Options {
    /// The `args = [...]` key and its elements.
    pub(crate) args: Option<(Span, Vec<Expr>)>,
    /// `bytes` or `elements`.
    pub(crate) throughput: Option<Ident>,
    /// `ignore`, or `#[ignore]` on the function: skipped unless asked for.
    pub(crate) ignore: bool,
}

/// Parses the attribute's arguments, stopping at the first bad key.
pub(crate) fn parse(attr: TokenStream) -> syn::Result<Options> {
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| options.parse_key(meta));
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(options)
}

impl Options {
    /// Parses one `key = value`. A key given twice is an error rather than
    /// the last one silently winning.
    fn parse_key(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        // Without spaces, so that a path key is named as written: `foo::bar`.
        let key = meta.path.to_token_stream().to_string().replace(' ', "");
        if self.has(&key) {
            return Err(meta.error(format!("duplicate key `{key}`")));
        }
        if meta.path.is_ident("args") {
            self.args = Some(parse_args(&meta)?);
        } else if meta.path.is_ident("throughput") {
            self.throughput = Some(parse_throughput(&meta)?);
        } else if meta.path.is_ident("ignore") {
            if meta.input.peek(syn::Token![=]) {
                return Err(meta.error("`ignore` takes no value: `#[perfbench(ignore)]`"));
            }
            self.ignore = true;
        } else {
            return Err(meta.error(format!(
                "unknown key `{key}` (expected `args`, `throughput` or `ignore`)"
            )));
        }
        Ok(())
    }

    /// Whether `key` was already given.
    fn has(&self, key: &str) -> bool {
        match key {
            "args" => self.args.is_some(),
            "throughput" => self.throughput.is_some(),
            "ignore" => self.ignore,
            _ => false,
        }
    }
}

/// The value of `args = [a, b, …]`: its elements, with the key's span, at
/// which errors about a function that cannot receive them point.
fn parse_args(meta: &ParseNestedMeta<'_>) -> syn::Result<(Span, Vec<Expr>)> {
    let span = meta.path.span();
    let value: Expr = meta.value()?.parse()?;
    let Expr::Array(array) = value else {
        return Err(Error::new(
            value.span(),
            "`args` takes a list: `args = [1, 2, 3]`",
        ));
    };
    if array.elems.is_empty() {
        return Err(Error::new(
            array.span(),
            "`args` needs at least one argument",
        ));
    }
    Ok((span, array.elems.into_iter().collect()))
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
