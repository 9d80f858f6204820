//! Typed reads of JSON values (perfbench's JSON lines, stored files, the
//! report's page dumps): each read names the field and prints the value it
//! was read from when the field is missing or of another type, where a bare
//! `as_f64` and `unwrap` would say only "called `Option::unwrap()` on a
//! `None` value".

use std::fmt::Display;

use serde_json::value::Index;
use serde_json::{Map, Value};

/// Reads of one field (a key, or an index into an array) of a JSON value,
/// as a given type; each fails with the field's name and the value read.
pub trait Fields {
    /// The field `key`, which must be there.
    fn field<I: Index + Display + Copy>(&self, key: I) -> &Value;
    /// The number `key`.
    fn f64_at<I: Index + Display + Copy>(&self, key: I) -> f64;
    /// The unsigned integer `key`.
    fn u64_at<I: Index + Display + Copy>(&self, key: I) -> u64;
    /// The integer `key`.
    fn i64_at<I: Index + Display + Copy>(&self, key: I) -> i64;
    /// The string `key`.
    fn str_at<I: Index + Display + Copy>(&self, key: I) -> &str;
    /// The array `key`.
    fn array_at<I: Index + Display + Copy>(&self, key: I) -> &Vec<Value>;
    /// The object `key`.
    fn object_at<I: Index + Display + Copy>(&self, key: I) -> &Map<String, Value>;
}

impl Fields for Value {
    fn field<I: Index + Display + Copy>(&self, key: I) -> &Value {
        self.get(key)
            .unwrap_or_else(|| panic!("no field `{key}` in {self}"))
    }

    fn f64_at<I: Index + Display + Copy>(&self, key: I) -> f64 {
        typed(self, key, "a number", Value::as_f64)
    }

    fn u64_at<I: Index + Display + Copy>(&self, key: I) -> u64 {
        typed(self, key, "an unsigned integer", Value::as_u64)
    }

    fn i64_at<I: Index + Display + Copy>(&self, key: I) -> i64 {
        typed(self, key, "an integer", Value::as_i64)
    }

    fn str_at<I: Index + Display + Copy>(&self, key: I) -> &str {
        typed(self, key, "a string", Value::as_str)
    }

    fn array_at<I: Index + Display + Copy>(&self, key: I) -> &Vec<Value> {
        typed(self, key, "an array", Value::as_array)
    }

    fn object_at<I: Index + Display + Copy>(&self, key: I) -> &Map<String, Value> {
        typed(self, key, "an object", Value::as_object)
    }
}

/// `value` as a number, or a panic that prints it.
pub fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

/// The field `key` of `value` read by `read`, or a panic naming the field,
/// the type wanted (`what`) and the value.
fn typed<'v, I, T>(value: &'v Value, key: I, what: &str, read: fn(&'v Value) -> Option<T>) -> T
where
    I: Index + Display + Copy,
{
    read(value.field(key)).unwrap_or_else(|| panic!("field `{key}` is not {what} in {value}"))
}
