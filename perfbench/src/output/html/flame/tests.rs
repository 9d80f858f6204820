//! Tests of the flame graphs: each frame once at its exact place, every
//! name escaped, the same bytes for the same profile, the differential's
//! colours, the bound on a huge profile, and a benchmark's page with both.

use super::*;

const HOSTILE: &str = "</script><script>alert(1)</script>";
const GENERIC: &str = "<T as Foo<&'a str>>::bar";

fn profile(iterations: u64, stacks: &[(&[&str], u64)]) -> Profile {
    let mut p = Profile::new("cpu-clock");
    p.iterations = iterations;
    for (frames, n) in stacks {
        p.add(frames.iter().map(|f| f.to_string()).collect(), *n);
    }
    p
}

/// 5 samples of 8 events: bench (1 self) → parse (4: 1 self, light 2, GENERIC 1),
/// bench → HOSTILE 3.
fn hand_made() -> Profile {
    profile(
        4,
        &[
            (&["bench"], 1),
            (&["bench", "parse"], 1),
            (&["bench", "parse", "light"], 2),
            (&["bench", "parse", GENERIC], 1),
            (&["bench", HOSTILE], 3),
        ],
    )
}

/// The frames of `html`: (escaped name, x, width, data-s, data-n, depth,
/// class, fill).
fn frames(html: &str) -> Vec<[String; 8]> {
    let attr = |tag: &str, name: &str| {
        let from = tag.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
        tag[from..].split('"').next().unwrap().to_string()
    };
    html.split("<svg class=\"f")
        .skip(1)
        .filter(|rest| rest.starts_with(['"', ' ']))
        .map(|rest| {
            let tag = &rest[..rest.find('>').unwrap()];
            let name = rest.split("<text x=\"3\" y=\"12\">").nth(1).unwrap();
            let name = name.split("</text>").next().unwrap().to_string();
            let class = tag.split('"').next().unwrap().trim().to_string();
            [
                name,
                attr(tag, "x"),
                attr(tag, "width"),
                attr(tag, "data-s"),
                attr(tag, "data-n"),
                attr(tag, "data-d"),
                class,
                attr(tag, "fill"),
            ]
        })
        .collect()
}

#[test]
fn each_frame_is_drawn_once_at_its_exact_place() {
    let html = flame_graph(&hand_made());
    let found: Vec<[String; 6]> = frames(&html)
        .into_iter()
        .map(|[name, x, w, s, n, d, _, _]| [name, x, w, s, n, d])
        .collect();
    let hostile = "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;";
    let generic = "&lt;T as Foo&lt;&amp;&#39;a str&gt;&gt;::bar";
    // In the profile's order: a stack's own samples first, then its callees
    // by name (`<` sorts before `l`, `p`).
    let expected = [
        ["bench", "0%", "100%", "0", "8", "0"],
        [hostile, "12.5%", "37.5%", "1", "3", "1"],
        ["parse", "50%", "50%", "4", "4", "1"],
        [generic, "62.5%", "12.5%", "5", "1", "2"],
        ["light", "75%", "25%", "6", "2", "2"],
    ];
    assert_eq!(found, expected.map(|f| f.map(String::from)));
    // The widths add up exactly: bench 8 = 1 own + 3 + 4, parse 4 = 1 own
    // + 1 + 2; each frame drawn once, its name escaped.
    for name in ["bench", hostile, "parse", generic, "light"] {
        let title = format!("<title>{name}\n");
        assert_eq!(html.matches(&title).count(), 1, "{name}");
    }
    assert!(html.contains("<title>parse\n4 events (50.00 %)</title>"));
    assert!(html.contains("data-total=\"8\""));
    assert!(
        html.contains("5 samples of <code>cpu-clock</code> standing for 8 events in 4 iterations.")
    );
}

#[test]
fn no_name_is_ever_unescaped_and_the_script_holds_none() {
    let mut p = hand_made();
    p.event = "ev<\"'&>".into();
    let html = flame_graph(&p);
    for raw in [HOSTILE, GENERIC, "alert(1)</script>", "ev<", "Foo<&"] {
        assert!(!html.contains(raw), "{raw} unescaped");
    }
    assert_eq!(html.matches("<script>").count(), 1, "only the graph's own");
    assert_eq!(html.matches("</script>").count(), 1);
    let script = html.split("<script>").nth(1).unwrap();
    assert!(!script.contains("alert") && !script.contains("bench"));
    assert!(
        !html.contains("http") && !html.contains("src="),
        "no network resource"
    );
    for handler in ["onclick", "onmouseover", "onload", "onerror", "javascript:"] {
        assert!(!html.contains(handler), "{handler}");
    }
    let d = differential_flame_graph(&hand_made(), &p);
    for raw in [HOSTILE, GENERIC, "ev<"] {
        assert!(!d.contains(raw), "{raw} unescaped");
    }
}

#[test]
fn the_same_profile_makes_the_same_bytes() {
    assert_eq!(flame_graph(&hand_made()), flame_graph(&hand_made()));
    let (b, a) = (hand_made(), hand_made());
    assert_eq!(
        differential_flame_graph(&b, &a),
        differential_flame_graph(&b, &a)
    );
}

#[test]
fn the_differential_colours_growth_red_and_shrinkage_blue_per_iteration() {
    // Before: 4 iterations, light 2, GENERIC 1, HOSTILE 3 (per iteration
    // 0.5, 0.25, 0.75). After: 8 iterations, light 8 (1 per iteration,
    // grew), GENERIC 2 (0.25, the same), HOSTILE 2 (0.25, shrank).
    let before = hand_made();
    let after = profile(
        8,
        &[
            (&["bench"], 2),
            (&["bench", "parse"], 2),
            (&["bench", "parse", "light"], 8),
            (&["bench", "parse", GENERIC], 2),
            (&["bench", HOSTILE], 2),
        ],
    );
    let html = differential_flame_graph(&before, &after);
    let by_name: Vec<(String, String, String)> = frames(&html)
        .into_iter()
        .map(|[name, _, _, _, _, _, class, fill]| (name, class, fill))
        .collect();
    let class_of = |n: &str| by_name.iter().find(|f| f.0 == n).unwrap().clone();
    // light moved most (+0.5 per iteration): the deepest red; HOSTILE
    // -0.5: the deepest blue; bench 2 → 2: unchanged; parse 1 → 1.5.
    assert_eq!(class_of("light").1, "grew");
    assert_eq!(class_of("light").2, "#ff3737");
    let hostile = "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;";
    assert_eq!(class_of(hostile).1, "shrank");
    assert_eq!(class_of(hostile).2, "#3737ff");
    assert_eq!(class_of("bench").1, "same");
    assert_eq!(
        class_of("&lt;T as Foo&lt;&amp;&#39;a str&gt;&gt;::bar").1,
        "same"
    );
    assert_eq!(class_of("parse").1, "grew");
    assert!(html.contains(
        "<title>light\nbefore 0.5000 events per iteration, after 1.000 (+100.00%)</title>"
    ));
    assert!(html.contains("<svg class=\"f grew\" x=\"50%\""));
}

#[test]
fn a_differential_of_other_events_or_no_iterations_is_not_drawn() {
    let mut other = hand_made();
    other.event = "cycles".into();
    let html = differential_flame_graph(&hand_made(), &other);
    assert!(html.contains("Not drawn: the two profiles sample different events."));
    assert!(!html.contains("<svg"));
    let html = differential_flame_graph(&profile(0, &[]), &hand_made());
    assert!(html.contains("Not drawn: a profile of no iterations has no events per iteration."));
    let html = flame_graph(&profile(3, &[]));
    assert!(html.contains("No samples: no flame graph."));
}

#[test]
fn a_huge_profile_is_bounded_and_narrow_frames_merged() {
    // 5,000 callees of one sample each beside one of 5,000: each narrow
    // one is under 1/1000 of the 10,000 samples.
    let mut p = profile(1, &[(&["bench", "wide"], 5000)]);
    for i in 0..5000 {
        p.add(vec!["bench".into(), format!("narrow{i:04}")], 1);
    }
    let html = flame_graph(&p);
    let found = frames(&html);
    assert_eq!(found.len(), 3, "bench, the narrow ones merged, wide");
    assert_eq!(found[1][0], "5000 narrow frames merged");
    assert_eq!(found[1][4], "5000");
    assert_eq!(found[1][6], "");
    assert_eq!(found[2][0], "wide");
    // A tower of wide frames stops at MAX_DRAWN.
    let deep: Vec<String> = (0..1024).map(|i| format!("f{i}")).collect();
    let mut p = profile(1, &[]);
    for i in 0..3 {
        let mut stack = deep.clone();
        stack[0] = format!("root{i}");
        p.add(stack, 1);
    }
    let drawn = frames(&flame_graph(&p));
    assert_eq!(
        drawn.iter().filter(|f| !f[0].contains("merged")).count(),
        MAX_DRAWN
    );
    assert!(drawn.len() <= 2 * MAX_DRAWN + 1);
}

#[test]
fn a_benchmarks_page_carries_its_flame_graphs_where_it_has_a_profile() {
    use crate::analysis::comparison::Target;
    use crate::output::html::tests::{analysed, options, page, save, Run, TempStore};
    use crate::output::html::write_report;
    use crate::store::Slot;

    let store = TempStore::new("flame");
    save(&store, &Slot::Latest, Run::of("plain"));
    save(&store, &Slot::Latest, Run::of("profiled"));
    let mut run: Vec<_> = ["plain", "profiled"]
        .iter()
        .map(|id| analysed(&store, id, &Target::PreviousRun).unwrap())
        .collect();
    let mut after = hand_made();
    after.add(vec!["bench".into(), "parse".into(), "light".into()], 6);
    // The profile rides on the recording, the one compared with on the
    // run it was compared with.
    run[1].recording.profile = Some(after.clone());
    let mut before = run[1].recording.clone();
    before.profile = Some(hand_made());
    run[1].compared_with = Some(before);
    let options = options(true, Target::PreviousRun);
    write_report(&store, &run, &options).unwrap();
    let html = page(&store, "profiled");
    assert_eq!(
        html.matches("<section id=\"profile\" class=\"flame\">")
            .count(),
        1
    );
    assert_eq!(
        html.matches("<section id=\"profile-change\" class=\"flame\">")
            .count(),
        1
    );
    assert!(html.contains(&flame_graph(&after)));
    assert!(html.contains(&differential_flame_graph(&hand_made(), &after)));
    assert!(!html.contains(HOSTILE) && !html.contains(GENERIC));
    assert!(!page(&store, "plain").contains("class=\"flame\""));
}

#[test]
fn a_merged_box_compares_the_siblings_it_merges() {
    let mut after = profile(1, &[(&["bench", "wide"], 5000)]);
    let mut before = profile(2, &[(&["bench", "wide"], 5000), (&["bench", "zzz"], 7)]);
    for i in 0..5000 {
        after.add(vec!["bench".into(), format!("narrow{i:04}")], 1);
        if i < 1000 {
            let mut deeper = vec!["bench".to_string(), format!("narrow{i:04}")];
            deeper.push("inner".into());
            before.add(deeper, 2);
        }
    }
    let html = differential_flame_graph(&before, &after);
    let title = format!(
        "<title>5000 narrow frames merged\nbefore {} events per iteration, after {} (+400.00%)</title>",
        four_digits(1000.0),
        four_digits(5000.0)
    );
    assert!(html.contains(&title), "{html}");
    // bench: 5000 + 7 + 2000 before, over 2 iterations; `zzz` is gone.
    let bench = format!("<title>bench\nbefore {} events", four_digits(7007.0 / 2.0));
    assert!(html.contains(&bench));
    assert!(!html.contains("zzz"));
}

#[test]
fn a_frame_only_the_profile_before_had_is_drawn_shrunk_with_its_figures() {
    // Before, over 2 iterations: HOSTILE 4 (2 per iteration, gone after),
    // kept 2 (1). After, over 4 iterations: kept 4 (1, the same).
    let before = profile(2, &[(&["bench", HOSTILE], 4), (&["bench", "kept"], 2)]);
    let after = profile(4, &[(&["bench", "kept"], 4)]);
    let html = differential_flame_graph(&before, &after);
    let hostile = "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;";
    assert!(!html.contains(HOSTILE), "{html}");
    // HOSTILE is as wide as its 2 events an iteration over the 4
    // iterations after (8), kept its 4: 12 in all.
    let drawn: Vec<[String; 8]> = frames(&html);
    let by_name = |n: &str| drawn.iter().find(|f| f[0] == n).unwrap().clone();
    let [_, x, width, start, n, depth, class, fill] = by_name(hostile);
    assert_eq!(
        [x, width, start, n, depth],
        ["0%", "66.6667%", "0", "8", "1"].map(String::from)
    );
    // As deep a blue as bench's move (3 → 1 per iteration): the largest.
    assert_eq!((class.as_str(), fill.as_str()), ("shrank", "#3737ff"));
    assert!(
        html.contains(&format!(
            "{hostile}\nbefore 2.000 events per iteration, after 0.000 (gone)</title>"
        )),
        "{html}"
    );
    let [_, x, width, _, n, _, class, _] = by_name("kept");
    assert_eq!(
        [x, width, n, class],
        ["66.6667%", "33.3333%", "4", "same"].map(String::from)
    );
    assert_eq!(by_name("bench")[6], "shrank");
    assert_eq!(by_name("bench")[4], "12");
}
