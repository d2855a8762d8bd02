//! A switch technology as a component: what a switch does when it is woken (arbitration)
//! and when one of its events happens (a head arriving, a tail leaving, credits returning),
//! written against the switches' state (`Fabric`) so it runs in the sequential and the
//! parallel engine alike. The technologies are registered in `switch/mod.rs`
//! (`technologies!`): the engine resolves its `Tech` once when it is built, and every call
//! is a `match` on it, dispatched statically.

use super::fabric::Fabric;
use super::Model;
use crate::config::{Config, TechnologyFields};
use crate::event::Event;
use std::any::Any;

/// A technology's own `[switch]` fields (`()` for none), declared, read and checked in its
/// file; the config keeps them as written (`config::TechnologyFields`).
pub(crate) trait Parameters: Clone + std::fmt::Debug + Default {
    /// Their names in `[switch]`, in the order configs serialise them.
    const FIELDS: &'static [&'static str];

    /// The values of a config whose fields were checked (`check`); a field not written takes
    /// its default.
    fn read(fields: &TechnologyFields) -> Self;

    /// Refuses values (and combinations with the other `[switch]` fields) the technology
    /// cannot work with: one line naming the field, the value and what is allowed.
    fn check(cfg: &Config) -> crate::Result<()>;
}

/// No fields of its own.
impl Parameters for () {
    const FIELDS: &'static [&'static str] = &[];

    fn read(_: &TechnologyFields) -> Self {}

    fn check(_: &Config) -> crate::Result<()> {
        Ok(())
    }
}

/// One switch technology.
pub(crate) trait Technology {
    /// Its own `[switch]` fields (`()` for none).
    type Params: Parameters;

    /// Whether a switch configured as `model` is of this technology (the registry asks the
    /// technologies in order; the last, the input-queued cut-through switch, takes any).
    fn selects(model: &Model) -> bool;

    /// Switch `s` was woken at `now`: match waiting packets to outputs, start transmissions.
    fn arbitrate<F: Fabric + ?Sized>(f: &mut F, s: usize, now: u64);

    /// A switch event (`Event::Arrive`, `Tail`, `Credit`, or the flit events) at `now`.
    fn event<F: Fabric + ?Sized>(f: &mut F, ev: Event, now: u64);

    /// State of its own beyond the shared arrays (`Fabric::tech_state`), built once for the
    /// network: `channels` channels with `vcs` VCs each, `switches` switches, `nics` NICs.
    fn state(
        _model: &Model,
        _channels: usize,
        _switches: usize,
        _nics: usize,
        _vcs: usize,
    ) -> Option<Box<dyn Any + Send>> {
        None
    }

    /// Whether the parallel engine may run it (its state is the shared arrays only).
    fn parallel() -> bool {
        true
    }

    /// Whether the NICs send flit by flit with flit credits (wormhole) instead of whole
    /// packets with packet credits.
    fn flits() -> bool {
        false
    }

    /// Whether the sequential engine's prefetching of a switch's records pays for it.
    fn prefetches() -> bool {
        true
    }
}

/// Declares the technologies, one line each (`module::Type`), in the order they are asked
/// whether they take a configuration: the modules, and `Tech`, the engine's handle on the
/// one it runs.
macro_rules! technologies {
    ($($module:ident :: $ty:ident),* $(,)?) => {
        $(pub(crate) mod $module;)*

        /// Every technology's own `[switch]` fields, read from a config (see `Parameters`).
        // The fields of technologies without any (`()`) are never read.
        #[allow(dead_code)]
        #[derive(Clone, Debug, Default)]
        pub struct Params {
            $(#[doc = concat!("`", stringify!($module), "::", stringify!($ty), "`'s")] pub(crate) $module: <$module::$ty as $crate::switch::technology::Technology>::Params,)*
        }

        impl Params {
            /// The technologies' fields of `fields` (checked before, by `Params::check`).
            pub(crate) fn read(fields: &$crate::config::TechnologyFields) -> Params {
                Params { $($module: <<$module::$ty as $crate::switch::technology::Technology>::Params as $crate::switch::technology::Parameters>::read(fields),)* }
            }

            /// Every technology's field names, in registry order.
            pub(crate) fn fields() -> Vec<&'static str> {
                let mut all = Vec::new();
                $(all.extend_from_slice(<<$module::$ty as $crate::switch::technology::Technology>::Params as $crate::switch::technology::Parameters>::FIELDS);)*
                all
            }

            /// Every technology's checks of its fields in `cfg`.
            pub(crate) fn check(cfg: &$crate::config::Config) -> $crate::Result<()> {
                $(<<$module::$ty as $crate::switch::technology::Technology>::Params as $crate::switch::technology::Parameters>::check(cfg)?;)*
                Ok(())
            }
        }

        /// The switch technology of a network, resolved once when the engine is built.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Tech {
            $(#[doc = concat!("`", stringify!($module), "::", stringify!($ty), "`")] $ty,)*
        }

        impl Tech {
            /// The technology of switches configured as `model`.
            pub(crate) fn of(model: &$crate::switch::Model) -> Tech {
                $(if <$module::$ty as $crate::switch::technology::Technology>::selects(model) {
                    return Tech::$ty;
                })*
                unreachable!("the last technology takes any configuration")
            }

            /// Its name.
            pub fn name(self) -> &'static str {
                match self { $(Tech::$ty => stringify!($module),)* }
            }

            #[inline]
            pub(crate) fn arbitrate<F: $crate::switch::fabric::Fabric + ?Sized>(self, f: &mut F, s: usize, now: u64) {
                match self { $(Tech::$ty => <$module::$ty as $crate::switch::technology::Technology>::arbitrate(f, s, now),)* }
            }

            #[inline]
            pub(crate) fn event<F: $crate::switch::fabric::Fabric + ?Sized>(self, f: &mut F, ev: crate::event::Event, now: u64) {
                match self { $(Tech::$ty => <$module::$ty as $crate::switch::technology::Technology>::event(f, ev, now),)* }
            }

            /// Its own state, if it keeps any (see `Technology::state`).
            pub(crate) fn state(
                self,
                model: &$crate::switch::Model,
                channels: usize,
                switches: usize,
                nics: usize,
                vcs: usize,
            ) -> Option<Box<dyn std::any::Any + Send>> {
                match self { $(Tech::$ty => <$module::$ty as $crate::switch::technology::Technology>::state(model, channels, switches, nics, vcs),)* }
            }

            /// Whether the parallel engine may run it.
            pub fn parallel(self) -> bool {
                match self { $(Tech::$ty => <$module::$ty as $crate::switch::technology::Technology>::parallel(),)* }
            }

            /// Whether NICs send flit by flit.
            pub fn flits(self) -> bool {
                match self { $(Tech::$ty => <$module::$ty as $crate::switch::technology::Technology>::flits(),)* }
            }

            /// Whether the sequential engine prefetches its switches' records.
            pub fn prefetches(self) -> bool {
                match self { $(Tech::$ty => <$module::$ty as $crate::switch::technology::Technology>::prefetches(),)* }
            }
        }
    };
}
