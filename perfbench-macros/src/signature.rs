//! Which documented form a benchmark function has, or the error saying why it has none.

use syn::spanned::Spanned;
use syn::{Error, Expr, FnArg, PatType, ReturnType, Signature, Type};

use crate::options::Options;

/// The documented forms of a benchmark function.
pub(crate) enum Form<'a> {
    /// `fn name() -> T`: the body is the routine.
    Plain,
    /// `fn name(b: &mut Bencher)`.
    Bencher,
    /// `fn name(b: &mut Bencher, arg: T)`, called once per value of `args`.
    WithArg { ty: &'a Type, values: &'a [Expr] },
}

/// Classifies the function, checking it step by step; the first problem
/// found is the error reported.
pub(crate) fn classify<'a>(sig: &'a Signature, options: &'a Options) -> syn::Result<Form<'a>> {
    reject_qualifiers(sig)?;
    let params = free_params(sig)?;
    let form = match params.as_slice() {
        [] => without_params(options)?,
        [first, rest @ ..] => {
            check_bencher(first)?;
            check_returns_nothing(sig)?;
            after_bencher(rest, options)?
        }
    };
    check_throughput(&form, options)?;
    Ok(form)
}

/// Rejects what the harness cannot call as a plain function: `async`,
/// `unsafe`, `extern` and generic functions.
fn reject_qualifiers(sig: &Signature) -> syn::Result<()> {
    if let Some(a) = &sig.asyncness {
        return Err(Error::new(a.span(), "a benchmark cannot be `async`"));
    }
    if let Some(u) = &sig.unsafety {
        return Err(Error::new(
            u.span(),
            "a benchmark cannot be `unsafe`; call unsafe code from its body",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(Error::new_spanned(
            abi,
            "a benchmark is a plain Rust function, without `extern`",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(Error::new_spanned(
            &sig.generics,
            "a benchmark cannot be generic",
        ));
    }
    Ok(())
}

/// The parameters, none of them `self`: the harness has no value to call a
/// method on.
fn free_params(sig: &Signature) -> syn::Result<Vec<&PatType>> {
    sig.inputs
        .iter()
        .map(|p| match p {
            FnArg::Typed(t) => Ok(t),
            FnArg::Receiver(r) => Err(Error::new(
                r.span(),
                "a benchmark is a free function, not a method",
            )),
        })
        .collect()
}

/// `fn name()`: the form is plain, unless `args` has nowhere to go.
fn without_params(options: &Options) -> syn::Result<Form<'_>> {
    if let Some((span, _)) = &options.args {
        return Err(Error::new(
            *span,
            "`args` needs a parameter to receive them: `fn name(b: &mut Bencher, arg: T)`",
        ));
    }
    Ok(Form::Plain)
}

/// The harness passes a `&mut Bencher` first, whenever there are parameters.
fn check_bencher(first: &PatType) -> syn::Result<()> {
    if !is_bencher(&first.ty) {
        return Err(Error::new_spanned(
            first,
            "the first parameter of a benchmark must be `&mut Bencher`",
        ));
    }
    Ok(())
}

/// Whether `ty` is `&mut Bencher` (with any path or lifetime).
fn is_bencher(ty: &Type) -> bool {
    let Type::Reference(r) = ty else { return false };
    let Type::Path(p) = &*r.elem else {
        return false;
    };
    r.mutability.is_some() && p.path.segments.last().is_some_and(|s| s.ident == "Bencher")
}

/// A function given the `Bencher` measures through it, so a value it
/// returned would be dropped unmeasured.
fn check_returns_nothing(sig: &Signature) -> syn::Result<()> {
    // `-> ()` returns nothing too.
    let returns_unit = |ty: &Type| matches!(ty, Type::Tuple(t) if t.elems.is_empty());
    if let ReturnType::Type(_, ty) = &sig.output {
        if !returns_unit(ty) {
            return Err(Error::new_spanned(
                ty,
                "a benchmark taking a `Bencher` returns nothing; return values from the closure given to `b.iter`",
            ));
        }
    }
    Ok(())
}

/// The parameters after the `Bencher`: none, or one that receives each
/// value of `args`, which must then be given.
fn after_bencher<'a>(rest: &[&'a PatType], options: &'a Options) -> syn::Result<Form<'a>> {
    match (rest, &options.args) {
        ([], None) => Ok(Form::Bencher),
        ([], Some((span, _))) => Err(Error::new(
            *span,
            "`args` needs a second parameter to receive them: `fn name(b: &mut Bencher, arg: T)`",
        )),
        ([arg], None) => Err(Error::new_spanned(
            arg,
            "this parameter needs values: add `args = [...]` to `#[perfbench]`",
        )),
        ([arg], Some((_, values))) => Ok(Form::WithArg {
            ty: &arg.ty,
            values,
        }),
        ([_, extra, ..], _) => Err(Error::new_spanned(
            extra,
            "a benchmark takes at most two parameters: `&mut Bencher` and one argument",
        )),
    }
}

/// `throughput` takes the work per iteration from the argument, so it
/// needs the form that has one.
fn check_throughput(form: &Form<'_>, options: &Options) -> syn::Result<()> {
    match (&options.throughput, form) {
        (Some(kind), Form::Plain | Form::Bencher) => Err(Error::new(
            kind.span(),
            "`throughput = …` takes the work per iteration from `args`; without them call `b.throughput(…)`",
        )),
        _ => Ok(()),
    }
}
