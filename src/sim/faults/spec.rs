//! The fault plan of `sim serve --faults SPEC`: comma-separated faults, each
//! `NAME=VALUE`. Every time is SIMULATED time since the simulator started
//! (at `--speed 10`, `60s` passes in 6 real seconds). Durations are `90s`,
//! `5m`, `1h`, `1h30m`.
//!
//! | fault | meaning |
//! | --- | --- |
//! | `drop-watch=DUR` | every DUR, every open watch stream is closed (clients resume from their last version) |
//! | `5xx-burst=every:DUR:count:N[:code:C]` | every DUR, the next N requests are answered with C (default 503) |
//! | `outage=AT+LEN` | from AT for LEN: new connections are closed at once, requests on open ones fail without an answer, open watch and log streams are cut |
//! | `gone=every:DUR` | every DUR, every watch is closed and resuming from a version older than the newest then gets 410 Gone (clients re-list) |
//! | `close-logs=DUR` | every DUR, every followed log stream is closed |
//! | `truncate-event=N[:resource:PLURAL]` | the next N MODIFIED watch events (of PLURAL) are cut short on the wire: kube's client skips such a line |
//! | `truncate-event=every:DUR[:resource:PLURAL]` | the same, one event every DUR |
//!
//! Example: `drop-watch=30s,5xx-burst=every:120s:count:5,outage=600s+60s,gone=every:300s,close-logs=45s,truncate-event=every:600s`.

use std::fmt;

use jiff::SignedDuration;

/// The one-paragraph help shown by `sim serve --help` and in errors.
pub const SPEC_HELP: &str = "Faults to inject, comma-separated, times in SIMULATED time since start: \
drop-watch=DUR (close every watch every DUR), \
5xx-burst=every:DUR:count:N[:code:C] (the next N requests get C, default 503), \
outage=AT+LEN (connections refused/cut from AT for LEN), \
gone=every:DUR (close every watch, resumes get 410 Gone), \
close-logs=DUR (close followed log streams every DUR), \
truncate-event=N|every:DUR[:resource:PLURAL] (cut a MODIFIED watch event short on the wire). \
Example: drop-watch=30s,5xx-burst=every:120s:count:5,outage=600s+60s,gone=every:300s,close-logs=45s,truncate-event=1";

/// When a truncation happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Truncate {
    /// `N` events, armed at the start.
    Count(u32),
    /// One event every period.
    Every(SignedDuration),
}

/// A parsed `--faults SPEC`. Empty: no faults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultPlan {
    pub drop_watch_every: Option<SignedDuration>,
    /// (period, count, HTTP code).
    pub burst: Option<(SignedDuration, u32, u16)>,
    /// (start, length).
    pub outage: Option<(SignedDuration, SignedDuration)>,
    pub gone_every: Option<SignedDuration>,
    pub close_logs_every: Option<SignedDuration>,
    /// (when, resource plural or any).
    pub truncate: Option<(Truncate, Option<String>)>,
}

/// Why a SPEC was refused; the message names the part and shows the syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad --faults: {}\n{SPEC_HELP}", self.0)
    }
}

impl std::error::Error for SpecError {}

fn err<T>(msg: impl Into<String>) -> Result<T, SpecError> {
    Err(SpecError(msg.into()))
}

fn duration(part: &str, s: &str) -> Result<SignedDuration, SpecError> {
    let trimmed = s.trim();
    let d = if trimmed.chars().all(|c| c.is_ascii_digit()) && !trimmed.is_empty() {
        trimmed.parse::<i64>().ok().map(SignedDuration::from_secs)
    } else {
        trimmed.parse::<SignedDuration>().ok()
    };
    match d {
        Some(d) if d.is_positive() => Ok(d),
        _ => err(format!(
            "`{part}`: `{s}` is not a positive duration (use e.g. 30s, 5m, 1h)"
        )),
    }
}

fn number<T: std::str::FromStr>(part: &str, what: &str, s: &str) -> Result<T, SpecError> {
    s.trim()
        .parse()
        .or_else(|_| err(format!("`{part}`: {what} `{s}` is not a number")))
}

/// `key:value` pairs after a fault's first field.
type Pairs<'a> = Vec<(&'a str, &'a str)>;

/// `every:DUR` followed by `key:value` pairs.
fn every_with<'a>(part: &str, value: &'a str) -> Result<(SignedDuration, Pairs<'a>), SpecError> {
    let fields: Vec<&str> = value.split(':').collect();
    if fields.len() < 2 || fields[0] != "every" || !fields.len().is_multiple_of(2) {
        return err(format!(
            "`{part}`: expected every:DUR followed by key:value pairs"
        ));
    }
    let period = duration(part, fields[1])?;
    Ok((
        period,
        fields[2..].chunks(2).map(|c| (c[0], c[1])).collect(),
    ))
}

impl FaultPlan {
    /// Parses a SPEC (see the module documentation). An empty string is no faults.
    pub fn parse(spec: &str) -> Result<FaultPlan, SpecError> {
        let mut plan = FaultPlan::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((name, value)) = part.split_once('=') else {
                return err(format!("`{part}`: expected NAME=VALUE"));
            };
            let dup = |set: bool| -> Result<(), SpecError> {
                if set {
                    err(format!("`{name}` is given twice"))
                } else {
                    Ok(())
                }
            };
            match name.trim() {
                "drop-watch" => {
                    dup(plan.drop_watch_every.is_some())?;
                    plan.drop_watch_every = Some(duration(part, value)?);
                }
                "5xx-burst" => {
                    dup(plan.burst.is_some())?;
                    let (period, kv) = every_with(part, value)?;
                    let (mut count, mut code) = (None, 503u16);
                    for (k, v) in kv {
                        match k {
                            "count" => count = Some(number::<u32>(part, "count", v)?),
                            "code" => code = number::<u16>(part, "code", v)?,
                            other => {
                                return err(format!(
                                    "`{part}`: unknown key `{other}` (count, code)"
                                ));
                            }
                        }
                    }
                    let Some(count) = count.filter(|c| *c > 0) else {
                        return err(format!("`{part}`: needs count:N with N > 0"));
                    };
                    if !(500..=599).contains(&code) {
                        return err(format!("`{part}`: code {code} is not a 5xx"));
                    }
                    plan.burst = Some((period, count, code));
                }
                "outage" => {
                    dup(plan.outage.is_some())?;
                    let Some((at, len)) = value.split_once('+') else {
                        return err(format!(
                            "`{part}`: expected outage=AT+LEN, e.g. outage=600s+60s"
                        ));
                    };
                    let at = if at.trim() == "0" {
                        SignedDuration::ZERO
                    } else {
                        duration(part, at)?
                    };
                    plan.outage = Some((at, duration(part, len)?));
                }
                "gone" => {
                    dup(plan.gone_every.is_some())?;
                    let (period, kv) = every_with(part, value)?;
                    if let Some((k, _)) = kv.first() {
                        return err(format!("`{part}`: unknown key `{k}`"));
                    }
                    plan.gone_every = Some(period);
                }
                "close-logs" => {
                    dup(plan.close_logs_every.is_some())?;
                    plan.close_logs_every = Some(duration(part, value)?);
                }
                "truncate-event" => {
                    dup(plan.truncate.is_some())?;
                    let (when, kv) = if value.starts_with("every:") {
                        let (period, kv) = every_with(part, value)?;
                        (Truncate::Every(period), kv)
                    } else {
                        let fields: Vec<&str> = value.split(':').collect();
                        if fields.len().is_multiple_of(2) {
                            return err(format!("`{part}`: expected N[:resource:PLURAL]"));
                        }
                        let n = number::<u32>(part, "count", fields[0])?;
                        let kv = fields[1..].chunks(2).map(|c| (c[0], c[1])).collect();
                        (Truncate::Count(n), kv)
                    };
                    let mut plural = None;
                    for (k, v) in kv {
                        match k {
                            "resource" if !v.is_empty() => plural = Some(v.to_string()),
                            other => {
                                return err(format!("`{part}`: unknown key `{other}` (resource)"));
                            }
                        }
                    }
                    plan.truncate = Some((when, plural));
                }
                other => {
                    return err(format!(
                        "unknown fault `{other}` (drop-watch, 5xx-burst, outage, gone, close-logs, truncate-event)"
                    ));
                }
            }
        }
        Ok(plan)
    }

    /// [`FaultPlan::parse`] for clap (boxed: the plan is large for a CLI value).
    pub fn parse_boxed(spec: &str) -> Result<Box<FaultPlan>, SpecError> {
        FaultPlan::parse(spec).map(Box::new)
    }

    /// Whether the plan injects nothing.
    pub fn is_empty(&self) -> bool {
        *self == FaultPlan::default()
    }
}

impl fmt::Display for FaultPlan {
    /// The plan in SPEC syntax (parses back to the same plan).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = |d: SignedDuration| format!("{}s", d.as_secs());
        let mut parts = Vec::new();
        if let Some(d) = self.drop_watch_every {
            parts.push(format!("drop-watch={}", secs(d)));
        }
        if let Some((d, n, code)) = self.burst {
            parts.push(format!("5xx-burst=every:{}:count:{n}:code:{code}", secs(d)));
        }
        if let Some((at, len)) = self.outage {
            parts.push(format!("outage={}+{}", secs(at), secs(len)));
        }
        if let Some(d) = self.gone_every {
            parts.push(format!("gone=every:{}", secs(d)));
        }
        if let Some(d) = self.close_logs_every {
            parts.push(format!("close-logs={}", secs(d)));
        }
        if let Some((when, plural)) = &self.truncate {
            let when = match when {
                Truncate::Count(n) => n.to_string(),
                Truncate::Every(d) => format!("every:{}", secs(*d)),
            };
            let res = plural
                .as_ref()
                .map(|p| format!(":resource:{p}"))
                .unwrap_or_default();
            parts.push(format!("truncate-event={when}{res}"));
        }
        write!(f, "{}", parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(n: i64) -> SignedDuration {
        SignedDuration::from_secs(n)
    }

    #[test]
    fn parses_every_fault() {
        let p = FaultPlan::parse(
            "drop-watch=30s, 5xx-burst=every:2m:count:5,outage=600s+60s,gone=every:300s,\
             close-logs=45,truncate-event=1:resource:nodeworkloadlocks",
        )
        .unwrap();
        assert_eq!(p.drop_watch_every, Some(secs(30)));
        assert_eq!(p.burst, Some((secs(120), 5, 503)));
        assert_eq!(p.outage, Some((secs(600), secs(60))));
        assert_eq!(p.gone_every, Some(secs(300)));
        assert_eq!(p.close_logs_every, Some(secs(45)));
        assert_eq!(
            p.truncate,
            Some((Truncate::Count(1), Some("nodeworkloadlocks".into())))
        );
        assert_eq!(FaultPlan::parse(&p.to_string()).unwrap(), p);
        let q = FaultPlan::parse("5xx-burst=every:1h:count:2:code:500,truncate-event=every:10m")
            .unwrap();
        assert_eq!(q.burst, Some((secs(3600), 2, 500)));
        assert_eq!(q.truncate, Some((Truncate::Every(secs(600)), None)));
        assert!(FaultPlan::parse("").unwrap().is_empty());
    }

    #[test]
    fn bad_input_names_the_part_and_shows_the_syntax() {
        for (spec, want) in [
            ("drop-watch", "expected NAME=VALUE"),
            ("drop-watch=soon", "not a positive duration"),
            ("drop-watch=0s", "not a positive duration"),
            ("5xx-burst=every:10s", "needs count:N"),
            ("5xx-burst=every:10s:count:x", "count `x` is not a number"),
            ("5xx-burst=every:10s:count:2:code:404", "not a 5xx"),
            ("5xx-burst=10s:count:2", "expected every:DUR"),
            ("outage=600s", "expected outage=AT+LEN"),
            ("gone=300s", "expected every:DUR"),
            ("truncate-event=every:5m:kind:pods", "unknown key `kind`"),
            ("drop-watch=1s,drop-watch=2s", "given twice"),
            ("explode=1s", "unknown fault `explode`"),
        ] {
            let e = FaultPlan::parse(spec).unwrap_err().to_string();
            assert!(e.contains(want), "{spec}: {e}");
            assert!(e.contains("Example: drop-watch=30s"), "{spec}: {e}");
        }
    }
}
