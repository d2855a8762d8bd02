//! The spec grammar: `family:parameters`, one string per network.
//!
//! ```text
//! tree:k=4,n=3            k-ary n-tree
//! tree:k=8,kp=4,n=4       k:k'-ary n-thin-tree (kp = k')
//! xgft:h=3;m=15,18,18;w=1,18,18   generalized fat-tree XGFT(h; m1..mh; w1..wh)
//! torus:8x8[,t=T]         torus of any dimension, T terminals per switch (default 1)
//! mesh:4x4x4[,t=T]        mesh of any dimension
//! twin-torus:4x4x2x2x2    nD twin torus (n odd, n >= 3)
//! hyperx:12x8[,t=7][,k=2] HyperX with T terminals per switch and K links per switch pair
//! dragonfly:a=4,p=2,h=2[,g=9][,arrangement=absolute|relative|circulant]
//!                         dragonfly: a switches per group, p terminals, h global links each
//! cascade:groups=15,rows=6,cols=16,p=4[,global=24][,black=3][,green=1][,h=10][,cable=2][,arrangement=...]
//!                         Cray Cascade dragonfly: groups of rows x cols routers, all-to-all rows and columns
//! megafly:leaves=4,spines=4,p=4,h=4[,groups=17][,arrangement=...]
//!                         Megafly / Dragonfly+: groups as two-level fat-trees, global links on the spines
//! slimfly:q=5[,p=4]       Slim Fly MMS graph of prime power q, p terminals per switch
//! jellyfish:n=20,k=4,p=2[,seed=1]  random k-regular graph of n switches
//! crossbar:64             a single switch with 64 terminals
//! director-tree:nodes=672,edges=48,directors=6[,uplinks=18][,spines=18][,radix=36]
//!                         fat-tree plane of edge switches and directors of chips
//! ibnet:PATH              a fabric from ibnetdiscover output (or an ibsim net file)
//! edges:PATH              a fabric from a plain edge list (see `topology::import`)
//! ibdm:PATH               a fabric from an IBDM .topo file (see `topology::ibdm`)
//! anynet:PATH             a fabric from a BookSim2 anynet file (see `topology::anynet`)
//! codes-dragonfly:INTRA,INTER[,p=N]  a fabric from CODES connection files (`topology::codes`)
//! ```

use super::arrangement::Arrangement;
use super::cascade::CascadeParams;
use super::director_tree::DirectorTree;
use super::family::{
    Cascade, Crossbar, Dragonfly, Family, HyperX, Jellyfish, Megafly, SlimFly, Torus, TwinTorus, Xgft,
};
use crate::error::{Error, Result};

/// The families the grammar knows, as listed in error messages.
pub const FAMILIES: &str =
    "tree, xgft, torus, mesh, twin-torus, hyperx, dragonfly, cascade, megafly, slimfly, jellyfish, \
                            crossbar, director-tree, ibnet, edges, ibdm, anynet, codes-dragonfly";

/// Parses a spec string into a family with validated parameters (nothing is built yet).
pub fn parse(spec: &str) -> Result<Family> {
    let spec = spec.trim();
    let Some((name, body)) = spec.split_once(':') else {
        // A config file where a spec belongs (`flow ebb my.toml`, `topo describe my.toml`):
        // say that the command wants the network itself, and how to name a file of one.
        let file = if spec.ends_with(".toml") {
            " (a config file is no spec: give its `topology` value, its other fields with --set \
             PATH=VALUE where the command takes them; a network file is named by its format, \
             e.g. ibnet:FILE)"
        } else {
            ""
        };
        return Err(Error::invalid(
            spec,
            "spec",
            format!("'{spec}'"),
            format!("expected 'family:parameters' with family one of {FAMILIES}{file}"),
        ));
    };
    let p = Parser { spec };
    match name.trim() {
        "tree" => p.tree(body),
        "xgft" => p.xgft(body),
        "torus" => p.torus(body, true),
        "mesh" => p.torus(body, false),
        "twin-torus" => p.twin_torus(body),
        "hyperx" => p.hyperx(body),
        "dragonfly" => p.dragonfly(body),
        "cascade" => p.cascade(body),
        "megafly" => p.megafly(body),
        "slimfly" => p.slimfly(body),
        "jellyfish" => p.jellyfish(body),
        "crossbar" => p.crossbar(body),
        "director-tree" => p.director_tree(body),
        "ibnet" | "edges" | "ibdm" => {
            super::import::read(name.trim(), body.trim()).map(|f| Family::Fabric(Box::new(f)))
        }
        "anynet" => super::anynet::read(body.trim()).map(|f| Family::Fabric(Box::new(f))),
        "codes-dragonfly" => super::codes::read(body.trim()).map(|f| Family::Fabric(Box::new(f))),
        other => Err(Error::invalid(spec, "family", format!("'{other}'"), format!("one of {FAMILIES}"))),
    }
}

/// `spec` with each file its family reads (`ibnet:`, `edges:`, `ibdm:` and `anynet:` name
/// one, before an optional `,t=N`; `codes-dragonfly:` two, its first fields) replaced by
/// `f` of its name (trimmed), the rest as written; other families, and specs too malformed to
/// say, are returned as written for [`parse`] to judge. A config makes its inputs relative
/// to its own folder with it (`config::files`).
pub fn map_files(spec: &str, f: impl Fn(&str) -> String) -> String {
    let Some((name, body)) = spec.split_once(':') else {
        return spec.to_string();
    };
    let family = name.trim();
    match family {
        "ibnet" | "edges" | "ibdm" | "anynet" => match body.rsplit_once(",t=") {
            Some((file, terminals)) => format!("{family}:{},t={terminals}", f(file.trim())),
            None => format!("{family}:{}", f(body.trim())),
        },
        "codes-dragonfly" => {
            let mut fields: Vec<String> = body.split(',').map(str::to_string).collect();
            for field in fields.iter_mut().take(2) {
                *field = f(field.trim());
            }
            format!("{family}:{}", fields.join(","))
        }
        _ => spec.to_string(),
    }
}

/// The parameters of a `director-tree:` spec (for writing its edge list).
pub fn parse_director_tree(spec: &str) -> Result<DirectorTree> {
    let spec = spec.trim();
    match spec.split_once(':') {
        Some(("director-tree", body)) => Parser { spec }.director_tree_params(body),
        _ => Err(Error::invalid(spec, "spec", format!("'{spec}'"), "a director-tree:... spec")),
    }
}

/// Parsing context: remembers the spec for error messages.
struct Parser<'a> {
    spec: &'a str,
}

impl Parser<'_> {
    fn err(&self, field: &str, value: impl std::fmt::Display, allowed: impl Into<String>) -> Error {
        Error::invalid(self.spec, field, value, allowed)
    }

    /// A positive integer no larger than `max`.
    fn int(&self, field: &str, text: &str, min: u64, max: u64) -> Result<usize> {
        let t = text.trim();
        let allowed = || format!("an integer between {min} and {max}");
        let v: u64 = t.parse().map_err(|_| self.err(field, format!("'{t}'"), allowed()))?;
        if v < min || v > max {
            return Err(self.err(field, v, allowed()));
        }
        Ok(v as usize)
    }

    /// `key=value` pairs separated by `sep`, each key allowed once and known.
    fn pairs<'b>(&self, body: &'b str, sep: char, known: &[&str]) -> Result<Vec<(&'b str, &'b str)>> {
        let mut out: Vec<(&str, &str)> = Vec::new();
        if body.trim().is_empty() {
            return Ok(out);
        }
        for item in body.split(sep).map(str::trim) {
            // `torus:4x4,,t=2` or a separator at the end: refused rather than read as
            // another spelling of the same network (specs name results and store keys).
            if item.is_empty() {
                return Err(self.err(
                    "parameter",
                    "''",
                    format!(
                        "key=value with key one of {}, without an empty one between '{sep}'s or at the end",
                        known.join(", ")
                    ),
                ));
            }
            let Some((k, v)) = item.split_once('=') else {
                return Err(self.err(
                    "parameter",
                    format!("'{item}'"),
                    format!("key=value with key one of {}", known.join(", ")),
                ));
            };
            let k = k.trim();
            if !known.contains(&k) {
                return Err(self.err("parameter", format!("'{k}'"), format!("one of {}", known.join(", "))));
            }
            if out.iter().any(|(seen, _)| *seen == k) {
                return Err(self.err(k, format!("'{}'", v.trim()), "each parameter at most once"));
            }
            out.push((k, v.trim()));
        }
        Ok(out)
    }

    fn get<'b>(&self, pairs: &[(&str, &'b str)], key: &str) -> Option<&'b str> {
        pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    fn required<'b>(&self, pairs: &[(&str, &'b str)], key: &str, what: &str) -> Result<&'b str> {
        self.get(pairs, key).ok_or_else(|| self.err(key, "missing", format!("required: {what}")))
    }

    /// `AxBxC` dimension list, each size in `min..=max`.
    fn dims(&self, text: &str, min: u64) -> Result<Vec<usize>> {
        let text = text.trim();
        if text.is_empty() {
            return Err(self.err("dimensions", "missing", "sizes such as 8x8 or 4x4x2"));
        }
        text.split('x').enumerate().map(|(i, d)| self.int(&format!("dimension {i}"), d, min, 1 << 24)).collect()
    }

    /// Splits `8x8,t=2` into the dimension part and the `key=value` rest.
    fn dims_and_pairs<'b>(&self, body: &'b str, known: &[&str]) -> Result<(&'b str, Vec<(&'b str, &'b str)>)> {
        match body.split_once(',') {
            // `torus:4x4,`: the comma promises a parameter.
            Some((_, rest)) if rest.trim().is_empty() => Err(self.err(
                "parameter",
                "''",
                format!("key=value with key one of {} after the comma, or no comma", known.join(", ")),
            )),
            Some((dims, rest)) => Ok((dims, self.pairs(rest, ',', known)?)),
            None => Ok((body, Vec::new())),
        }
    }

    fn tree(&self, body: &str) -> Result<Family> {
        let pairs = self.pairs(body, ',', &["k", "kp", "n"])?;
        let k = self.int("k", self.required(&pairs, "k", "k, the number of down ports per switch")?, 1, 1 << 16)?;
        let n = self.int("n", self.required(&pairs, "n", "n, the number of levels")?, 1, 64)?;
        let kp = match self.get(&pairs, "kp") {
            Some(v) => self.int("kp", v, 1, k as u64).map_err(|_| {
                self.err("kp", format!("'{v}'"), format!("an integer between 1 and k = {k} (k' up ports per switch)"))
            })?,
            None => k,
        };
        Xgft::thin_tree(self.spec, k, kp, n).map(Family::Tree)
    }

    fn xgft(&self, body: &str) -> Result<Family> {
        let pairs = self.pairs(body, ';', &["h", "m", "w"])?;
        let list = |key: &str, min: u64| -> Result<Vec<usize>> {
            let text = self.required(&pairs, key, &format!("{key}=comma-separated list, one value per level"))?;
            text.split(',').map(|v| self.int(key, v, min, 1 << 16)).collect()
        };
        let m = list("m", 1)?;
        let w = list("w", 1)?;
        let h = match self.get(&pairs, "h") {
            Some(v) => self.int("h", v, 1, 64)?,
            None => m.len(),
        };
        if m.len() != h {
            return Err(self.err("m", format!("{} values", m.len()), format!("exactly h = {h} values")));
        }
        if w.len() != h {
            return Err(self.err("w", format!("{} values", w.len()), format!("exactly h = {h} values")));
        }
        if w[0] != 1 {
            return Err(self.err("w1", w[0], "1 (terminals with several network ports are not supported)"));
        }
        Xgft::new(self.spec, m, w, 0).map(Family::Tree)
    }

    fn torus(&self, body: &str, wrap: bool) -> Result<Family> {
        let (dims, pairs) = self.dims_and_pairs(body, &["t"])?;
        // A torus ring needs two switches; a mesh dimension of size 1 is merely degenerate.
        let dims = self.dims(dims, if wrap { 2 } else { 1 })?;
        let t = match self.get(&pairs, "t") {
            Some(v) => self.int("t", v, 1, 1 << 16)?,
            None => 1,
        };
        Torus::new(self.spec, dims, wrap, t).map(Family::Torus)
    }

    fn twin_torus(&self, body: &str) -> Result<Family> {
        if let Some((_, rest)) = body.split_once(',') {
            let item = rest.split(',').map(str::trim).find(|s| !s.is_empty()).unwrap_or("");
            return Err(self.err(
                "parameter",
                format!("'{item}'"),
                "none: a twin torus takes sizes only (one PE per card), e.g. twin-torus:4x4x2x2x2",
            ));
        }
        let dims = self.dims(body, 2)?;
        let n = dims.len();
        if n < 3 || n % 2 == 0 {
            return Err(self.err(
                "number of dimensions",
                n,
                "an odd number >= 3 (the card layout of Definition 2.2 of the nDT torus is defined for odd n only)",
            ));
        }
        TwinTorus::new(self.spec, dims).map(Family::TwinTorus)
    }

    fn hyperx(&self, body: &str) -> Result<Family> {
        let (dims, pairs) = self.dims_and_pairs(body, &["t", "k"])?;
        let dims = self.dims(dims, 2)?;
        let t = self.get(&pairs, "t").map(|v| self.int("t", v, 1, 1 << 16)).transpose()?.unwrap_or(1);
        let k = self.get(&pairs, "k").map(|v| self.int("k", v, 1, 64)).transpose()?.unwrap_or(1);
        HyperX::new(self.spec, dims, t, k).map(Family::HyperX)
    }

    fn dragonfly(&self, body: &str) -> Result<Family> {
        let pairs = self.pairs(body, ',', &["a", "p", "h", "g", "arrangement"])?;
        let a = self.int("a", self.required(&pairs, "a", "a, the number of switches per group")?, 1, 1 << 12)?;
        let p = self.int("p", self.required(&pairs, "p", "p, the number of terminals per switch")?, 1, 1 << 12)?;
        let h = self.int("h", self.required(&pairs, "h", "h, the number of global links per switch")?, 1, 1 << 12)?;
        let g = self.get(&pairs, "g").map(|v| self.int("g", v, 2, (a * h + 1) as u64)).transpose()?;
        let arrangement = self.arrangement(&pairs)?.unwrap_or(Arrangement::Absolute);
        Dragonfly::new(self.spec, a, p, h, g, arrangement).map(Family::Dragonfly)
    }

    /// The `arrangement` of a dragonfly family, if given.
    fn arrangement(&self, pairs: &[(&str, &str)]) -> Result<Option<Arrangement>> {
        self.get(pairs, "arrangement")
            .map(|v| {
                Arrangement::parse(v)
                    .ok_or_else(|| self.err("arrangement", format!("'{v}'"), format!("one of {}", Arrangement::NAMES)))
            })
            .transpose()
    }

    fn cascade(&self, body: &str) -> Result<Family> {
        let keys = ["groups", "rows", "cols", "p", "global", "green", "black", "h", "cable", "arrangement"];
        let pairs = self.pairs(body, ',', &keys)?;
        let need = |key: &str, what: &str, max: u64| self.int(key, self.required(&pairs, key, what)?, 1, max);
        let opt = |key: &str, min: u64, max: u64| self.get(&pairs, key).map(|v| self.int(key, v, min, max)).transpose();
        let params = CascadeParams {
            groups: need("groups", "groups, the number of groups", 1 << 16)?,
            rows: need("rows", "rows, the chassis (router rows) per group", 1 << 12)?,
            cols: need("cols", "cols, the routers per chassis (row)", 1 << 12)?,
            p: need("p", "p, the number of terminals per router", 1 << 12)?,
            global: opt("global", 0, 1 << 24)?,
            green: opt("green", 1, 64)?,
            black: opt("black", 1, 64)?,
            h: opt("h", 0, 1 << 12)?,
            cable: opt("cable", 1, 64)?,
            arrangement: self.arrangement(&pairs)?,
        };
        Cascade::new(self.spec, params).map(Family::Cascade)
    }

    fn megafly(&self, body: &str) -> Result<Family> {
        let pairs = self.pairs(body, ',', &["groups", "leaves", "spines", "p", "h", "arrangement"])?;
        let need = |key: &str, what: &str| self.int(key, self.required(&pairs, key, what)?, 1, 1 << 12);
        let leaves = need("leaves", "leaves, the leaf routers per group")?;
        let spines = need("spines", "spines, the spine routers per group")?;
        let p = need("p", "p, the number of terminals per leaf")?;
        let h = need("h", "h, the number of global links per spine")?;
        let groups =
            self.get(&pairs, "groups").map(|v| self.int("groups", v, 2, (spines * h + 1) as u64)).transpose()?;
        let arrangement = self.arrangement(&pairs)?.unwrap_or(Arrangement::Absolute);
        Megafly::new(self.spec, groups, leaves, spines, p, h, arrangement).map(Family::Megafly)
    }

    fn slimfly(&self, body: &str) -> Result<Family> {
        let pairs = self.pairs(body, ',', &["q", "p"])?;
        let q = self.int("q", self.required(&pairs, "q", "q, a prime power")?, 3, 1 << 12)?;
        let p = self.get(&pairs, "p").map(|v| self.int("p", v, 1, 1 << 12)).transpose()?;
        SlimFly::new(self.spec, q, p).map(Family::SlimFly)
    }

    fn jellyfish(&self, body: &str) -> Result<Family> {
        let pairs = self.pairs(body, ',', &["n", "k", "p", "seed"])?;
        let n = self.int("n", self.required(&pairs, "n", "n, the number of switches")?, 2, 1 << 24)?;
        let k = self.int("k", self.required(&pairs, "k", "k, the switch-to-switch links per switch")?, 1, 1 << 12)?;
        let p = self.int("p", self.required(&pairs, "p", "p, the number of terminals per switch")?, 1, 1 << 12)?;
        let seed = match self.get(&pairs, "seed") {
            Some(v) => {
                v.parse::<u64>().map_err(|_| self.err("seed", format!("'{v}'"), "an integer between 0 and 2^64 - 1"))?
            }
            None => 1,
        };
        Jellyfish::new(self.spec, n, k, p, seed).map(Family::Jellyfish)
    }

    fn director_tree(&self, body: &str) -> Result<Family> {
        self.director_tree_params(body)?.fabric(self.spec).map(|f| Family::Fabric(Box::new(f)))
    }

    fn director_tree_params(&self, body: &str) -> Result<DirectorTree> {
        let pairs = self.pairs(body, ',', &["nodes", "edges", "directors", "uplinks", "spines", "radix"])?;
        let n =
            |key: &str, what: &str| -> Result<usize> { self.int(key, self.required(&pairs, key, what)?, 1, 1 << 20) };
        // Nodes up to 2^40 reach `DirectorTree::new`, which names the bound the ports set.
        let nodes =
            self.int("nodes", self.required(&pairs, "nodes", "nodes, the number of compute nodes")?, 2, 1 << 40)?;
        let radix = self.get(&pairs, "radix").map(|v| self.int("radix", v, 2, 4096)).transpose()?.unwrap_or(36);
        let half = |key: &str| self.get(&pairs, key).map(|v| self.int(key, v, 1, 4096)).transpose();
        DirectorTree::new(
            self.spec,
            nodes,
            n("edges", "edges, the number of edge switches")?,
            half("uplinks")?.unwrap_or(radix / 2),
            n("directors", "directors, the number of director chassis")?,
            half("spines")?.unwrap_or(radix / 2),
            radix,
        )
    }

    fn crossbar(&self, body: &str) -> Result<Family> {
        let ports = self.int("ports", body, 2, 1 << 20)?;
        Ok(Family::Crossbar(Crossbar { ports }))
    }
}

/// Whether `spec` names a family read as a fabric (an edge list routed by tables: imported
/// files and the director-based tree), judged from its name alone, without reading a file.
pub fn names_a_fabric(spec: &str) -> bool {
    let name = spec.split(['|', ':']).next().unwrap_or("").trim();
    matches!(name, "director-tree" | "ibnet" | "edges" | "ibdm" | "anynet" | "codes-dragonfly")
}
