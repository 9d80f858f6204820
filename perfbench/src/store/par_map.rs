//! `par_map`: a function over a slice on every available core, results in
//! the slice's order. The report reads and summarises stored runs with
//! it, and writes its pages with it: many independent pieces of work, each
//! a file, where one thread would leave the other cores idle. It lives at the store's layer, the lowest that
//! uses it, so the store and the outputs above it share one.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` over `items` on every available core, in order. Each thread takes
/// the next item not yet taken, so a slow item holds up only its own
/// thread; a panic in `f` reaches the caller with its own payload.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            let done = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (i, r) in done {
                out[i] = Some(r);
            }
        }
    });
    out.into_iter()
        .map(|r| r.expect("every item was mapped"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::par_map;

    #[test]
    fn results_keep_the_order_of_the_items_and_panics_reach_the_caller() {
        let items: Vec<u64> = (0..1000).collect();
        assert_eq!(
            par_map(&items, |&i| i * i),
            items.iter().map(|&i| i * i).collect::<Vec<_>>()
        );
        assert!(par_map(&[] as &[u64], |&i| i).is_empty());
        let panicked = std::panic::catch_unwind(|| {
            par_map(&items, |&i| if i == 500 { panic!("item {i}") } else { i })
        });
        let payload = panicked.expect_err("the panic reaches the caller");
        let message = payload.downcast_ref::<String>().map(String::as_str);
        assert_eq!(message, Some("item 500"));
    }
}
