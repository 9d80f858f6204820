//! `#[perfbench::group(…)]` on an inline module: one place for the settings
//! its benchmarks share, as Criterion's `benchmark_group` with its
//! `sample_size`, `warm_up_time` and `measurement_time`.
//!
//! An attribute on a module sees the module's items before their own
//! attributes expand, so the group adds each of its keys to every
//! `#[perfbench(…)]` inside (nested inline modules too) that does not give
//! that key itself: the member's own setting wins, and each benchmark's
//! expansion checks and registers the keys as if written on it.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Error, Item, ItemMod, LitStr, Meta};

use crate::options::{self, canonical, new_key, unknown_key, BENCHMARK_KEYS, SETTING_KEYS};

/// The keys the group takes, as the unknown-key error lists them.
const EXPECTED: &str =
    "`name`, `sample_count`, `warm_up_time`, `measurement_time`, `events` or `mode`";

/// What the group's attribute gives its members.
#[derive(Default)]
struct GroupKeys {
    /// `name = "…"`: the members' `group`, else their module's.
    name: Option<LitStr>,
    /// The settings, each as its key (by [`canonical`]) and as written,
    /// `key = value`, to be added to a member's attribute.
    settings: Vec<(String, TokenStream)>,
}

/// Expands `#[perfbench::group(attr)] item`: the module with its members'
/// attributes completed, or the item as written and the error.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut module = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Mod(module)) => module,
        // At the attribute, the culprit.
        _ => return with_error(item, Error::new(Span::call_site(), NOT_A_MODULE)),
    };
    match parse(attr).and_then(|keys| keys.complete(&mut module)) {
        Ok(()) => module.into_token_stream(),
        Err(error) => with_error(module.into_token_stream(), error),
    }
}

/// The error for the group's attribute on anything but a module.
const NOT_A_MODULE: &str = "`#[perfbench::group]` goes on a module written inline, \
                            `mod name { … }`, whose `#[perfbench]` functions share its settings";

/// The item as written, and the error.
fn with_error(item: TokenStream, error: Error) -> TokenStream {
    let error = error.into_compile_error();
    quote!(#item #error)
}

/// Parses the group's keys, checking each setting as a benchmark's
/// attribute would (so `sample_count = 0` is the error it is there).
fn parse(attr: TokenStream) -> syn::Result<GroupKeys> {
    let mut keys = GroupKeys::default();
    let parser = syn::meta::parser(|meta| keys.parse_key(meta));
    syn::parse::Parser::parse2(parser, attr)?;
    let written = keys.settings.iter().map(|(_, tokens)| tokens);
    options::parse(quote!(#(#written),*))?;
    Ok(keys)
}

impl GroupKeys {
    /// Parses one `key = value`; a key given twice is an error, as on a
    /// benchmark.
    fn parse_key(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let written = new_key(&meta, |key| self.has(key))?;
        let key = canonical(&written);
        match key {
            "name" => self.name = Some(parse_name(&meta)?),
            "group" => {
                return Err(
                    meta.error("the group's name is `name = \"…\"` (`group` is a benchmark's key)")
                )
            }
            key if SETTING_KEYS.contains(&key) => {
                let value: syn::Expr = meta.value()?.parse()?;
                let path = &meta.path;
                self.settings
                    .push((key.to_string(), quote!(#path = #value)));
            }
            key if BENCHMARK_KEYS.contains(&key) => {
                return Err(meta.error(format!(
                    "`{key}` is a benchmark's own key: put it on the function, not the group"
                )))
            }
            _ => {
                let names: Vec<&str> = ["name"].iter().chain(SETTING_KEYS).copied().collect();
                return Err(meta.error(unknown_key(&written, &names, EXPECTED)));
            }
        }
        Ok(())
    }

    /// Whether `key` (by [`canonical`]) was given.
    fn has(&self, key: &str) -> bool {
        match key {
            "name" => self.name.is_some(),
            _ => self.settings.iter().any(|(k, _)| k == key),
        }
    }

    /// The module with its members' attributes completed; an error where
    /// it is not inline or holds no `#[perfbench]` function, since then
    /// the settings would apply to nothing.
    fn complete(&self, module: &mut ItemMod) -> syn::Result<()> {
        let Some((_, items)) = &mut module.content else {
            return Err(Error::new_spanned(&module.ident, NOT_INLINE));
        };
        if self.complete_items(items) == 0 {
            return Err(Error::new_spanned(
                &module.ident,
                "this group holds no `#[perfbench]` function for its settings to apply to",
            ));
        }
        Ok(())
    }

    /// Completes the members among `items`, and in their inline modules;
    /// how many it found.
    fn complete_items(&self, items: &mut [Item]) -> usize {
        let mut members = 0;
        for item in items {
            match item {
                Item::Fn(f) => {
                    for attr in f.attrs.iter_mut().filter(|a| is_ours(a, "perfbench")) {
                        self.complete_member(attr);
                        members += 1;
                    }
                }
                Item::Mod(m) => match m.attrs.iter_mut().find(|a| is_ours(a, "group")) {
                    Some(inner) => {
                        self.complete_group(inner);
                        members += 1;
                    }
                    None => {
                        if let Some((_, items)) = &mut m.content {
                            members += self.complete_items(items);
                        }
                    }
                },
                _ => {}
            }
        }
        members
    }

    /// Adds to a member's `#[perfbench(…)]` the settings it does not give
    /// (and the group's name as its `group`). An attribute that does not
    /// parse is left as written: its own expansion says why.
    fn complete_member(&self, attr: &mut Attribute) {
        let given = attr_args(attr);
        if let Ok(own) = options::parse(given.clone()) {
            let added = self.missing(|key| own.has(key), "group");
            set_args(attr, given, added);
        }
    }

    /// Adds to a nested group's attribute the keys it does not give: the
    /// inner group's settings win for its members, as a member's do.
    fn complete_group(&self, attr: &mut Attribute) {
        let given = attr_args(attr);
        if let Ok(own) = parse(given.clone()) {
            let added = self.missing(|key| own.has(key), "name");
            set_args(attr, given, added);
        }
    }

    /// The keys, as written, of the settings `has` says are not given, and
    /// the name under the key `name_key` where that is not given either.
    fn missing(&self, has: impl Fn(&str) -> bool, name_key: &str) -> Vec<TokenStream> {
        let key = syn::Ident::new(name_key, Span::call_site());
        let name = self.name.iter().map(|n| (name_key, quote!(#key = #n)));
        let settings = self.settings.iter().map(|(k, t)| (k.as_str(), t.clone()));
        settings
            .chain(name)
            .filter(|(key, _)| !has(key))
            .map(|(_, tokens)| tokens)
            .collect()
    }
}

/// The error for `#[perfbench::group] mod name;`.
const NOT_INLINE: &str = "`#[perfbench::group]` needs the module written inline, \
                          `mod name { … }`: an attribute cannot see into a module's own file \
                          (put it on an inline module there instead)";

/// The value of `name = "…"`: a name that is not blank.
fn parse_name(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    let name: LitStr = meta.value()?.parse().map_err(|e| {
        Error::new(
            e.span(),
            "`name` takes the group's name in quotes: `name = \"encode\"`",
        )
    })?;
    if name.value().trim().is_empty() {
        return Err(Error::new(name.span(), "`name` needs a name"));
    }
    Ok(name)
}

/// Whether `attr` is perfbench's attribute `name`: `#[name]`,
/// `#[perfbench::name]` or `#[::perfbench::name]`.
fn is_ours(attr: &Attribute, name: &str) -> bool {
    let segments: Vec<String> = attr
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segments.as_slice() {
        [last] => last == name,
        [krate, last] => krate == "perfbench" && last == name,
        _ => false,
    }
}

/// The keys inside an attribute's parentheses (none for `#[perfbench]`).
fn attr_args(attr: &Attribute) -> TokenStream {
    match &attr.meta {
        Meta::List(list) => list.tokens.clone(),
        _ => TokenStream::new(),
    }
}

/// Sets the attribute's keys to `given` followed by `added`.
fn set_args(attr: &mut Attribute, given: TokenStream, added: Vec<TokenStream>) {
    if added.is_empty() {
        return;
    }
    let path = attr.path().to_token_stream();
    let ends_with_comma = matches!(
        given.clone().into_iter().last(),
        Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ','
    );
    let comma = (!given.is_empty() && !ends_with_comma).then(|| quote!(,));
    attr.meta = syn::parse_quote!(#path(#given #comma #(#added),*));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The attributes of the items of `module`, as written after the group
    /// `attr` completed them, without spaces.
    fn completed(attr: &str, module: &str) -> Vec<String> {
        let out = expand(attr.parse().unwrap(), module.parse().unwrap());
        let module: ItemMod = syn::parse2(out).unwrap();
        let (_, items) = module.content.unwrap();
        let attrs = items.iter().filter_map(|item| match item {
            Item::Fn(f) => f.attrs.first(),
            Item::Mod(m) => m.attrs.first(),
            _ => None,
        });
        let text = |a: &Attribute| a.to_token_stream().to_string().replace(' ', "");
        attrs.map(text).collect()
    }

    #[test]
    fn members_get_the_keys_they_do_not_give() {
        let got = completed(
            r#"name = "encode", sample_size = 10, mode = "per-iter""#,
            r#"mod m {
                #[perfbench] fn plain() {}
                #[perfbench(sample_count = 5, group = "own",)] fn own() {}
                #[perfbench::group(mode = "batch")] mod inner { #[perfbench] fn f() {} }
                #[perfbench(sample_count = 0)] fn broken() {}
            }"#,
        );
        assert_eq!(
            got,
            [
                r#"#[perfbench(sample_size=10,mode="per-iter",group="encode")]"#,
                r#"#[perfbench(sample_count=5,group="own",mode="per-iter")]"#,
                r#"#[perfbench::group(mode="batch",sample_size=10,name="encode")]"#,
                // Left as written: its own expansion says what is wrong.
                r#"#[perfbench(sample_count=0)]"#,
            ]
        );
    }
}
