//! Which documented form a benchmark function has, or the error saying why it has none.

use syn::spanned::Spanned;
use syn::{Error, FnArg, GenericParam, Ident, PatType, ReturnType, Signature, Type};

use crate::options::{Args, AttributeOptions};

/// The documented forms of a benchmark function.
pub(crate) enum Form<'a> {
    /// `fn name() -> T`: the body is the routine.
    Plain,
    /// `fn name(b: &mut Bencher)`.
    Bencher,
    /// `fn name(b: &mut Bencher, arg: T)`, called once per value of `args`;
    /// `by_ref` is `U` where the parameter is `&U` (`size: &usize`,
    /// Criterion's `bench_with_input` habit), passed a reference to the
    /// case's value.
    WithArg {
        ty: &'a Type,
        args: &'a Args,
        by_ref: Option<&'a Type>,
    },
}

/// A function and what `#[perfbench]` learnt of it.
pub(crate) struct Classified<'a> {
    /// Its form.
    pub(crate) form: Form<'a>,
    /// The type parameter that `types = [...]` fills in, for a generic
    /// function.
    pub(crate) type_param: Option<&'a Ident>,
}

/// Classifies the function, checking it step by step; the first problem
/// found is the error reported.
pub(crate) fn classify<'a>(
    sig: &'a Signature,
    options: &'a AttributeOptions,
) -> syn::Result<Classified<'a>> {
    reject_qualifiers(sig)?;
    let type_param = type_param(sig, options)?;
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
    Ok(Classified { form, type_param })
}

/// Rejects what the harness cannot call as a plain function: `async`,
/// `unsafe` and `extern` functions.
fn reject_qualifiers(sig: &Signature) -> syn::Result<()> {
    if let Some(a) = &sig.asyncness {
        return Err(Error::new(a.span(), "a benchmark cannot be `async`"));
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
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
    Ok(())
}

/// The one type parameter of a generic function, which `types = [...]`
/// fills in; a generic function needs `types`, and `types` a generic
/// function.
fn type_param<'a>(
    sig: &'a Signature,
    options: &AttributeOptions,
) -> syn::Result<Option<&'a Ident>> {
    let params: Vec<&GenericParam> = sig.generics.params.iter().collect();
    match (params.as_slice(), &options.types) {
        ([], None) => Ok(None),
        ([], Some((span, _))) => Err(Error::new(
            *span,
            "`types` needs a generic function to fill in: `fn name<T>(…)`",
        )),
        ([GenericParam::Type(t)], Some(_)) => Ok(Some(&t.ident)),
        ([_], None) => Err(Error::new_spanned(
            &sig.generics,
            "a generic benchmark needs the types to run it with: `#[perfbench(types = [u8, u64])]`",
        )),
        _ => Err(Error::new_spanned(
            &sig.generics,
            "a benchmark takes one type parameter, which `types = [...]` fills in; no lifetimes or consts",
        )),
    }
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
fn without_params(options: &AttributeOptions) -> syn::Result<Form<'_>> {
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
fn after_bencher<'a>(rest: &[&'a PatType], options: &'a AttributeOptions) -> syn::Result<Form<'a>> {
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
        ([arg], Some((_, args))) => Ok(Form::WithArg {
            ty: &arg.ty,
            args,
            by_ref: referent(&arg.ty),
        }),
        ([_, extra, ..], _) => Err(Error::new_spanned(
            extra,
            "a benchmark takes at most two parameters: `&mut Bencher` and one argument",
        )),
    }
}

/// `U` where `ty` is `&U` with its lifetime left out: the function borrows
/// the case's value for the call. A reference with a lifetime written
/// (`&'static str`) outlives the call, so it is the value itself, as
/// before; so is `&mut U`.
fn referent(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() && r.lifetime.is_none() => Some(&r.elem),
        _ => None,
    }
}

/// `throughput` takes the work per iteration from the argument, so it
/// needs the form that has one.
fn check_throughput(form: &Form<'_>, options: &AttributeOptions) -> syn::Result<()> {
    match (&options.throughput, form) {
        (Some(kind), Form::Plain | Form::Bencher) => Err(Error::new(
            kind.span(),
            "`throughput = …` takes the work per iteration from `args`; without them call `b.throughput(…)`",
        )),
        _ => Ok(()),
    }
}
