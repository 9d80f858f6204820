//! The machine a run measured on, recorded with every stored result so that
//! comparisons across machines can be flagged.

use serde_json::{json, Value};

/// Facts about the machine and the run that change what counts mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Environment {
    /// `model name` from `/proc/cpuinfo`.
    pub cpu_model: String,
    /// The kernel release (`uname -r`).
    pub kernel: String,
    /// The CPU the measuring thread was pinned to.
    pub cpu: Option<usize>,
}

impl Environment {
    /// Reads this machine's facts.
    pub fn current(cpu: Option<usize>) -> Environment {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        let cpu_model = read("/proc/cpuinfo")
            .lines()
            .find_map(|l| {
                let (key, value) = l.split_once(':')?;
                (key.trim() == "model name").then(|| value.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let kernel = read("/proc/sys/kernel/osrelease").trim().to_string();
        Environment {
            cpu_model,
            kernel,
            cpu,
        }
    }

    /// The record as stored in result files.
    pub fn to_json(&self) -> Value {
        json!({ "cpu_model": self.cpu_model, "kernel": self.kernel, "cpu": self.cpu })
    }

    /// Reads a stored record; `None` if it is not one.
    pub fn from_json(v: &Value) -> Option<Environment> {
        Some(Environment {
            cpu_model: v.get("cpu_model")?.as_str()?.to_string(),
            kernel: v.get("kernel")?.as_str()?.to_string(),
            cpu: v.get("cpu")?.as_u64().map(|c| c as usize),
        })
    }

    /// Why counts measured on `other` may not compare with counts from
    /// here, if they may not.
    pub fn mismatch(&self, other: &Environment) -> Option<String> {
        if self.cpu_model != other.cpu_model {
            Some(format!(
                "another CPU model (`{}`, here `{}`)",
                other.cpu_model, self.cpu_model
            ))
        } else if self.kernel != other.kernel {
            Some(format!(
                "another kernel ({}, here {})",
                other.kernel, self.kernel
            ))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_a_kernel_release_and_round_trips() {
        let env = Environment::current(Some(1));
        assert!(!env.kernel.is_empty());
        assert_eq!(Environment::from_json(&env.to_json()), Some(env.clone()));
        assert_eq!(env.mismatch(&env), None);
        let mut other = env.clone();
        other.kernel = "1.0.0".into();
        assert!(env
            .mismatch(&other)
            .unwrap()
            .contains("another kernel (1.0.0"));
        other.cpu_model = "Z80".into();
        assert!(env
            .mismatch(&other)
            .unwrap()
            .contains("another CPU model (`Z80`"));
    }
}
