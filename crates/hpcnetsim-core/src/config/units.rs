//! Physical units in configs: sizes ("16 KiB"), times ("35 ns") and rates ("400 MB/s") are
//! parsed with `uom`, and the network clock converts them to the engine's cycles and phits.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use uom::si::f64::{Information, InformationRate, Time};
use uom::si::{information::byte, information_rate::byte_per_second, time::second};

/// Sizes, e.g. `"16 KiB"`, `"320 B"`, `"1 MB"` (SI and binary prefixes; `b` is bits).
pub const SIZE_UNITS: &str = "a size such as \"320 B\", \"16 KiB\" or \"1 MB\"";
/// Times, e.g. `"35 ns"`, `"2.1 us"`.
pub const TIME_UNITS: &str = "a time such as \"35 ns\", \"2.1 us\" or \"1 ms\"";
/// Rates, e.g. `"400 MB/s"`, `"200 Gb/s"`.
pub const RATE_UNITS: &str = "a rate such as \"400 MB/s\", \"3.2 GB/s\" or \"200 Gb/s\"";

/// The text as uom reads it: a space between the number and the unit, `us` as `µs`.
fn normalise(text: &str) -> String {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '+' | '-'))).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = match unit.trim() {
        "us" => "µs",
        u => u,
    };
    format!("{} {unit}", num.trim())
}

fn parsed<T: std::str::FromStr>(field: &str, text: &str, allowed: &str) -> Result<T> {
    normalise(text).parse::<T>().map_err(|_| Error::invalid("config", field, format!("'{text}'"), allowed))
}

fn finite(field: &str, text: &str, value: f64, allowed: &str) -> Result<f64> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(Error::invalid("config", field, format!("'{text}'"), format!("{allowed}, not negative")))
    }
}

/// Bytes in a size such as `"16 KiB"`; errors name `field`.
pub fn parse_bytes(field: &str, text: &str) -> Result<f64> {
    let q: Information = parsed(field, text, SIZE_UNITS)?;
    finite(field, text, q.get::<byte>(), SIZE_UNITS)
}

/// Seconds in a time such as `"35 ns"`; errors name `field`.
pub fn parse_seconds(field: &str, text: &str) -> Result<f64> {
    let q: Time = parsed(field, text, TIME_UNITS)?;
    finite(field, text, q.get::<second>(), TIME_UNITS)
}

/// Bytes per second in a rate such as `"400 MB/s"`; errors name `field`.
pub fn parse_rate(field: &str, text: &str) -> Result<f64> {
    let q: InformationRate = parsed(field, text, RATE_UNITS)?;
    let v = finite(field, text, q.get::<byte_per_second>(), RATE_UNITS)?;
    if v == 0.0 {
        return Err(Error::invalid("config", field, format!("'{text}'"), format!("{RATE_UNITS}, above zero")));
    }
    Ok(v)
}

/// A size given as a number of bytes or a string with a unit (`4096` or `"4 KiB"`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Bytes {
    /// A plain number of bytes.
    Count(u64),
    /// A size with a unit.
    Text(String),
}

impl Bytes {
    /// The size in whole bytes (rounded to the nearest byte); errors name `field`.
    pub fn bytes(&self, field: &str) -> Result<u64> {
        match self {
            Bytes::Count(n) => Ok(*n),
            Bytes::Text(t) => Ok(parse_bytes(field, t)?.round() as u64),
        }
    }
}

/// Read by hand rather than as an untagged enum, whose only message for a value neither variant
/// takes is "data did not match any variant": a negative count, a float or a list is named.
impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a number of bytes or {SIZE_UNITS}")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Bytes, E> {
                Ok(Bytes::Count(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Bytes, E> {
                u64::try_from(v)
                    .map(Bytes::Count)
                    .map_err(|_| E::custom(format!("{v} is invalid: a number of bytes (0 or more) or {SIZE_UNITS}")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Bytes, E> {
                // As every count of the config: an integer, or a size with its unit.
                Err(E::custom(format!("{v} is invalid: a whole number of bytes (0 or more) or {SIZE_UNITS}")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Bytes, E> {
                Ok(Bytes::Text(v.to_string()))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// Deserialises a byte count written as a number (`4096`) or a size with a unit (`"4 KiB"`).
pub fn bytes_or_size<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<u64, D::Error> {
    match Bytes::deserialize(d)? {
        Bytes::Count(n) => Ok(n),
        Bytes::Text(t) => match normalise(&t).parse::<Information>() {
            Ok(q) if q.get::<byte>() >= 0.0 && q.get::<byte>().is_finite() => Ok(q.get::<byte>().round() as u64),
            _ => Err(serde::de::Error::custom(format!("'{t}' is invalid: a number of bytes or {SIZE_UNITS}"))),
        },
    }
}

/// Deserialises a rate written as bytes per second (`4e9`) or with a unit (`"4 GB/s"`), as
/// the `[link]` rates are written.
pub fn bytes_per_second_or_rate<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    struct Visit;
    impl serde::de::Visitor<'_> for Visit {
        type Value = f64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a number of bytes per second or {RATE_UNITS}")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<f64, E> {
            Ok(v as f64) // a negative rate is refused by the validation, which names the field
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<f64, E> {
            Ok(v)
        }
        fn visit_str<E: serde::de::Error>(self, t: &str) -> std::result::Result<f64, E> {
            match normalise(t).parse::<InformationRate>() {
                Ok(q) if q.get::<byte_per_second>() >= 0.0 && q.get::<byte_per_second>().is_finite() => {
                    Ok(q.get::<byte_per_second>())
                }
                _ => Err(E::custom(format!("'{t}' is invalid: a number of bytes per second or {RATE_UNITS}"))),
            }
        }
    }
    d.deserialize_any(Visit)
}

/// The clock of a network: how long a cycle lasts and how many bytes a phit carries, so that
/// cycles and phits convert to seconds and bytes (link bandwidth = phit / cycle).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// Duration of one cycle in nanoseconds.
    pub cycle_ns: f64,
    /// Bytes per phit (one phit crosses a link per cycle).
    pub phit_bytes: u32,
}

impl Clock {
    /// Link bandwidth per direction in bytes per second.
    pub fn link_bytes_per_second(&self) -> f64 {
        // Scaled before dividing: 1e-9 has no exact double, so 16 B per 1 ns read 15 999 999 999.999998.
        self.phit_bytes as f64 * 1e9 / self.cycle_ns
    }

    /// Cycles (rounded to the nearest, at least 0) in `seconds`.
    pub fn cycles(&self, seconds: f64) -> u64 {
        (seconds * 1e9 / self.cycle_ns).round() as u64
    }

    /// Bytes per cycle of a rate in bytes per second.
    pub fn bytes_per_cycle(&self, bytes_per_second: f64) -> f64 {
        bytes_per_second * self.cycle_ns * 1e-9
    }

    /// Phits needed for `bytes` (at least one).
    pub fn phits(&self, bytes: u64) -> u32 {
        bytes.div_ceil(self.phit_bytes as u64).max(1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_times_rates() {
        assert_eq!(parse_bytes("f", "16 KiB").unwrap(), 16384.0);
        assert_eq!(parse_bytes("f", "16KiB").unwrap(), 16384.0);
        assert_eq!(parse_bytes("f", "1 MB").unwrap(), 1e6);
        assert!((parse_seconds("f", "35 ns").unwrap() - 35e-9).abs() < 1e-18);
        assert!((parse_seconds("f", "2.1 us").unwrap() - 2.1e-6).abs() < 1e-15);
        assert!((parse_seconds("f", "2.1µs").unwrap() - 2.1e-6).abs() < 1e-15);
        assert_eq!(parse_rate("f", "400 MB/s").unwrap(), 4e8);
        assert_eq!(parse_rate("f", "200 Gb/s").unwrap(), 25e9);
    }

    #[test]
    fn bad_units_name_the_field() {
        for (f, t) in [("link.bandwidth", "400 MB"), ("link.bandwidth", "fast"), ("link.bandwidth", "-1 MB/s")] {
            let e = parse_rate(f, t).unwrap_err().to_string();
            assert!(e.contains(f) && e.contains(t) && !e.contains('\n'), "{e}");
        }
        assert!(parse_seconds("nic.send_overhead", "3 KiB").unwrap_err().to_string().contains("nic.send_overhead"));
        assert!(parse_bytes("nic.max_payload", "3 ns").unwrap_err().to_string().contains("a size"));
    }

    #[test]
    fn clock_round_trip() {
        let c = Clock { cycle_ns: 5.0, phit_bytes: 2 };
        assert_eq!(c.link_bytes_per_second(), 4e8);
        // Round rates come out round (a cycle of 1 ns used to give 15 999.999… MB/s).
        for (cycle_ns, phit_bytes, rate) in [(1.0, 16, 16e9), (0.5, 8, 16e9), (0.4, 16, 40e9)] {
            assert_eq!(Clock { cycle_ns, phit_bytes }.link_bytes_per_second(), rate);
        }
        assert_eq!(c.cycles(parse_seconds("f", "35 ns").unwrap()), 7);
        assert_eq!(c.bytes_per_cycle(4e8), 2.0);
        assert_eq!(c.phits(0), 1);
        assert_eq!(c.phits(378), 189);
    }
}
