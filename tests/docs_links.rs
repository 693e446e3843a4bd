//! The Markdown documents' relative links: each names a file of the
//! repository, and a `#section` a heading of it, with the anchor GitHub makes
//! from the heading's text (README.md and docs/routines.md cite
//! docs/performance.md's sections by anchor).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

const DOCUMENTS: &[&str] = &["README.md", "docs/performance.md", "docs/routines.md"];

/// The lines of a document outside its fenced code blocks.
fn prose_lines(markdown: &str) -> impl Iterator<Item = &str> {
    let mut in_code = false;
    markdown.lines().filter(move |line| {
        let fence = line.trim_start().starts_with("```");
        in_code ^= fence;
        !fence && !in_code
    })
}

/// GitHub's anchor for a heading: lower case; letters, digits, '-' and '_'
/// kept, each space a '-', everything else (punctuation, symbols such as
/// '×' and '²', backticks) dropped; the n-th repeat of an anchor gets "-n".
fn anchors(markdown: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = Vec::new();
    for line in prose_lines(markdown) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let slug: String = line[hashes..]
            .trim()
            .to_lowercase()
            .chars()
            .filter(|&c| c.is_alphabetic() || c.is_ascii_digit() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = seen.entry(slug.clone()).or_insert(0);
        anchors.push(if *repeats == 0 { slug } else { format!("{slug}-{repeats}") });
        *repeats += 1;
    }
    anchors
}

/// The targets of the document's inline links (`[text](target)`, text over
/// several lines included), outside code blocks.
fn link_targets(markdown: &str) -> Vec<String> {
    let text: String = prose_lines(markdown).flat_map(|line| [line, "\n"]).collect();
    text.split("](").skip(1).filter_map(|rest| rest.split_once(')').map(|(target, _)| target.to_string())).collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn docs_relative_links_name_files_and_headings_that_exist() {
    let mut broken = Vec::new();
    let mut checked = 0;
    // Each linked document's anchors, read once.
    let mut anchors_of: HashMap<PathBuf, Vec<String>> = HashMap::new();
    for document in DOCUMENTS {
        let path = root().join(document);
        let markdown = std::fs::read_to_string(&path).unwrap();
        for target in link_targets(&markdown) {
            if target.contains("://") || target.starts_with("mailto:") || target.contains(char::is_whitespace) {
                continue;
            }
            let (file, section) = target.split_once('#').unwrap_or((&target, ""));
            let linked =
                if file.is_empty() { path.clone() } else { path.parent().unwrap_or(Path::new(".")).join(file) };
            checked += 1;
            if !linked.exists() {
                broken.push(format!("{document}: {target}: no such file"));
            } else if !section.is_empty() {
                let headings = anchors_of
                    .entry(linked.clone())
                    .or_insert_with(|| anchors(&std::fs::read_to_string(&linked).unwrap()));
                if !headings.iter().any(|a| a == section) {
                    broken.push(format!("{document}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 100, "only {checked} relative links found: the parser has gone wrong");
}

#[test]
fn anchors_follow_githubs_rules() {
    let headings = "# Title\n## TN and TT at 127×129×1023: the host's plan\n## T 1024² at the `read` floor\n\
                    ```\n## not a heading\n```\n## SAXPY with incy = 0\n## Title\n## A^T fed\n";
    assert_eq!(
        anchors(headings),
        [
            "title",
            "tn-and-tt-at-1271291023-the-hosts-plan",
            "t-1024-at-the-read-floor",
            "saxpy-with-incy--0",
            "title-1",
            "at-fed"
        ]
    );
    assert_eq!(link_targets("[a\nb](x.md#y) and [c](d) ```"), ["x.md#y", "d"]);
}
