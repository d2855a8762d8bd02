//! Bounded fuzzing of the parsers in `make test`: whatever the input, the spec and config
//! parsers return a value or a one-line error, never panic. `PROPTEST_CASES=200000` runs
//! longer (docs/reliability.md).

use hpcnetsim_core::config::Config;
use hpcnetsim_core::topology::spec;
use proptest::prelude::*;

fn one_line(e: &hpcnetsim_core::Error) -> bool {
    !e.to_string().contains('\n')
}

/// Spec-like strings: a family name, a colon and parameter-ish characters.
fn spec_text() -> impl Strategy<Value = String> {
    let family = prop_oneof![
        Just("tree"),
        Just("xgft"),
        Just("torus"),
        Just("mesh"),
        Just("twin-torus"),
        Just("hyperx"),
        Just("crossbar"),
        Just("ring"),
        Just("")
    ];
    (family, "[0-9a-z=,;x:. -]{0,24}").prop_map(|(f, body)| format!("{f}:{body}"))
}

/// TOML-like config text from fragments of real configs, shuffled and mutated.
fn config_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("topology = \"torus:4x4\"".to_string()),
        Just("[switch]".to_string()),
        Just("[traffic]".to_string()),
        Just("[measurement]".to_string()),
        Just("[routing]".to_string()),
        Just("[workload]".to_string()),
        (
            "[a-z_]{1,22}",
            prop_oneof![
                Just("1".to_string()),
                Just("-1".to_string()),
                Just("0".to_string()),
                Just("1e400".to_string()),
                Just("18446744073709551616".to_string()),
                Just("\"x\"".to_string()),
                Just("[1, 2]".to_string()),
                Just("{ a = 1 }".to_string()),
                Just("nan".to_string()),
                "[0-9]{1,20}".prop_map(|s| s),
            ]
        )
            .prop_map(|(k, v)| format!("{k} = {v}")),
        "[ -~]{0,30}",
    ];
    prop::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn specs_parse_or_fail_in_one_line(text in spec_text()) {
        if let Err(e) = spec::parse(&text) {
            prop_assert!(one_line(&e), "{e}");
        }
    }

    #[test]
    fn configs_parse_or_fail_in_one_line(text in config_text()) {
        if let Err(e) = Config::from_toml(&text) {
            prop_assert!(one_line(&e), "{e}");
        }
    }

    #[test]
    fn json_configs_parse_or_fail_in_one_line(text in "[ -~]{0,60}") {
        if let Err(e) = Config::from_json(&text) {
            prop_assert!(one_line(&e), "{e}");
        }
    }

    #[test]
    fn known_fields_with_any_number_fail_in_config_terms(
        field in prop_oneof![
            Just("switch.vcs"), Just("switch.queue_packets"), Just("measurement.warmup_cycles"),
            Just("measurement.batches"), Just("traffic.load"), Just("traffic.packet_phits"),
        ],
        value in prop_oneof![any::<i64>().prop_map(|v| v.to_string()), any::<f64>().prop_map(|v| format!("{v:?}"))],
    ) {
        let (table, key) = field.split_once('.').unwrap();
        let text = format!("topology = \"torus:4x4\"\n[{table}]\n{key} = {value}");
        if let Err(e) = Config::from_toml(&text) {
            let msg = e.to_string();
            prop_assert!(one_line(&e), "{msg}");
            for word in ["u32", "u64", "usize", "f64", "i64", "struct"] {
                prop_assert!(!msg.split(|c: char| !c.is_alphanumeric()).any(|w| w == word), "{msg}");
            }
        }
    }
}
