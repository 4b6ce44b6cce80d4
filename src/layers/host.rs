//! A host layer as one unit: what the live loop, a database node's
//! sampler, the app and export need of each layer that reads a host's
//! /proc and /sys (block devices, kernel NFS, page cache, NICs, CPU).
//! `host_layers!` is their one list: the code that has to name each host
//! layer (the live readers, the node's file list, the app's per-host state,
//! the inputs a recording stores, export's walker) is generated from it, so
//! a new host layer is a folder and a line there.

use crate::core::error::SampleError;
use crate::core::rootfs::RootFs;
use crate::layers::col::Units;
use crate::layers::disks::report::Selection;
use crate::layers::layer::Layer;
use crate::layers::metric::{Family, Sink};
use crate::layers::report::{Format, Report};
use crate::layers::{LayerId, Sampler};
use crate::store::Window;

/// What a host layer is, as the code above `layers` sees it.
pub trait HostLayer: 'static {
    const ID: LayerId;
    /// One reading of the layer's files: what a recording stores.
    type Sample: Clone
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Send
        + 'static;
    type Source: Sampler<Sample = Self::Sample>;
    /// What a host keeps of the layer: the newest figures, their history
    /// and the counters the next sample is diffed against.
    type State: HostState<Sample = Self::Sample>;
    /// The /proc files the layer's source reads every sample: a database
    /// node's sampler sends these (beside /proc/uptime, which every layer
    /// reads, and the sysfs facts and listings every node sends). A file
    /// missing here reads as missing on every node.
    const NODE_FILES: &'static [&'static str];
    fn source(fs: RootFs, opts: &HostOptions) -> Self::Source;
    /// The body of a sh function a node's sampler runs in each sample,
    /// for a layer whose files are not a fixed list (`$R` the root, `$T`
    /// the sampler's private temporary directory, or empty): it prints
    /// `=f PATH` and the file's lines, which the layer's source reads.
    fn node_script() -> Option<String> {
        None
    }
    /// Whether the layer reads on a thread of its own: a read that may
    /// hang (a watched file on a dead NFS server) must not hold up the
    /// others' /proc reads.
    fn own_thread(_opts: &HostOptions) -> bool {
        false
    }
    /// The sample's wall clock, ms since the Unix epoch.
    fn wall_ms(sample: &Self::Sample) -> i64;
    /// Figures over one interval, as the layer's baseline makes them.
    type Tick: std::fmt::Debug + Send + 'static;
    /// The counters a tick is diffed against, on their own: what export
    /// keeps of a host layer (the app keeps them in its state).
    type Baseline: Default;
    fn tick(baseline: &mut Self::Baseline, sample: &Self::Sample) -> Self::Tick;
    /// The interval a tick spans, in centiseconds of the source's clock;
    /// `None` when it spans none (the first sample, a reboot).
    fn itv_cs(tick: &Self::Tick) -> Option<u64>;
    /// The wall clock of the sample that closed the tick's interval.
    fn tick_ms(tick: &Self::Tick) -> i64;
    /// One tick as `strata batch <layer>` prints it (export prints it so
    /// too). `header_done`: whether a text header was printed already.
    fn print(tick: &Self::Tick, how: &ReportOptions, header_done: &mut bool) -> String;
    fn csv_header(how: &ReportOptions) -> String;
    /// The layer's figures in `strata summary`: each one `put` as entity,
    /// figure (name and unit) and value. Without a tick, the figures a
    /// summary lists even when they are never known (entities that come
    /// and go, mounts and interfaces, are listed as they are seen).
    fn summarize(tick: Option<&Self::Tick>, put: &mut dyn FnMut(&str, &'static str, Option<f64>));
    /// `strata batch <layer>`'s printer over `fs`.
    fn report(fs: RootFs, opts: &HostOptions, how: &ReportOptions) -> Box<dyn Report>;
    /// The layer's metric families, in the order `/metrics` lists them.
    fn families() -> Vec<&'static Family>;
    /// A sample's series: its raw counters and gauges.
    fn expose(sample: &Self::Sample, sink: &mut dyn Sink);
    /// Lines a node's frame could not carry, shown with the layer's own.
    fn reject(_sample: &mut Self::Sample, _lines: &mut Vec<crate::core::error::ParseError>) {}
}

/// A host layer's state in the app: the same for this machine and for
/// each database node.
pub trait HostState: std::fmt::Debug {
    type Sample;
    type Tick: Clone;
    fn new(window: &Window) -> Self;
    /// A good reading: its figures over the interval since the last go to
    /// the history, even while paused.
    fn ingest(&mut self, sample: &Self::Sample);
    /// What the screen shows of the layer.
    fn layer(&self) -> &Layer<Self::Tick>;
    fn layer_mut(&mut self) -> &mut Layer<Self::Tick>;
    /// How many names the layer's baseline holds (its charts' are
    /// counted apart).
    fn baseline_names(&self) -> usize {
        0
    }
    /// No reading, because.
    fn failed(&mut self, error: SampleError) {
        self.layer_mut().failed(error);
    }
    fn freeze(&mut self) {
        self.layer_mut().freeze();
    }
    fn thaw(&mut self) {
        self.layer_mut().thaw();
    }
    /// How many names the layer holds, its charts' and its baseline's.
    fn names_held(&self) -> usize {
        self.layer().history.entity_count() + self.baseline_names()
    }
}

/// A host layer's state that holds its [`Layer`] in a field `layer`:
/// the screen reads the layer through the state, and [`HostState`]'s
/// `layer` and `layer_mut` are that field.
macro_rules! layer_state {
    ($state:ty, $tick:ty) => {
        impl std::ops::Deref for $state {
            type Target = $crate::layers::layer::Layer<$tick>;
            fn deref(&self) -> &Self::Target {
                &self.layer
            }
        }

        impl std::ops::DerefMut for $state {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.layer
            }
        }
    };
}
pub(crate) use layer_state;

/// [`HostState`]'s `layer` and `layer_mut`, inside its impl, for a state
/// whose layer is its field `layer`.
macro_rules! layer_field {
    () => {
        fn layer(&self) -> &$crate::layers::layer::Layer<Self::Tick> {
            &self.layer
        }
        fn layer_mut(&mut self) -> &mut $crate::layers::layer::Layer<Self::Tick> {
            &mut self.layer
        }
    };
}
pub(crate) use layer_field;

/// What a host layer's source is built with, beyond the files it reads.
#[derive(Debug, Clone, Default)]
pub struct HostOptions {
    /// The watched files' patterns (the page cache's residency).
    pub cache_files: Vec<String>,
}

/// How `strata batch` prints a host layer: the command line's and the
/// config's choices.
#[derive(Debug, Clone, Copy)]
pub struct ReportOptions {
    pub format: Format,
    /// The disks' kB or MB.
    pub units: Units,
    /// Which devices, by which names.
    pub selection: Selection,
    /// Every interface, not only those that saw a packet.
    pub all_interfaces: bool,
}

/// A host layer's source as a reader of its input at a wall clock, its
/// type erased, so that one loop reads any layer.
pub type Reader<I> = Box<dyn FnMut(i64) -> I + Send>;

/// Calls `$m!` with the host layers, one `field Variant path::to::Layer`
/// each, after the tokens given in braces: the one list of host layers.
/// The field is the app's and a recording's name of the layer, the
/// variant its input's.
macro_rules! host_layers {
    ($m:path $({ $($pre:tt)* })?) => {
        $m! { $($($pre)*)? ;
            disks Disks $crate::layers::disks::state::Host,
            nfs Nfs $crate::layers::nfs::state::Host,
            cache Cache $crate::layers::cache::state::Host,
            nics Nics $crate::layers::nics::state::Host,
            cpu Cpu $crate::layers::cpu::state::Host,
            procs Procs $crate::layers::procs::state::Host,
        }
    };
}
pub(crate) use host_layers;

/// The sources of one host's layers.
macro_rules! def_sources {
    (; $($field:ident $variant:ident $layer:path,)*) => {
        /// Every host layer's source, over one root.
        pub struct HostSources {
            $(pub $field: <$layer as HostLayer>::Source,)*
        }

        impl HostSources {
            pub fn new(fs: RootFs, opts: &HostOptions) -> Self {
                HostSources {
                    $($field: <$layer as HostLayer>::source(fs.clone(), opts),)*
                }
            }

            /// Each layer's source as a reader of its input: `wrap` is
            /// given the layer and its result and makes the input.
            pub fn readers<I: 'static>(
                self,
                wrap: impl Wrap<I>,
            ) -> Vec<(LayerId, Reader<I>)> {
                let mut out: Vec<(LayerId, Reader<I>)> = Vec::new();
                $({
                    let mut source = self.$field;
                    let wrap = wrap.clone();
                    out.push((
                        <$layer as HostLayer>::ID,
                        Box::new(move |wall_ms| {
                            wrap.$field(source.sample(wall_ms).map_err(SampleError::from))
                        }),
                    ));
                })*
                out
            }
        }

        /// Makes an input of each host layer's result.
        pub trait Wrap<I>: Clone + Send + 'static {
            $(fn $field(
                &self,
                r: Result<<$layer as HostLayer>::Sample, SampleError>,
            ) -> I;)*
        }

        /// The /proc files a node's sampler sends every sample: every
        /// host layer's, once each, /proc/uptime first.
        pub fn node_files() -> Vec<&'static str> {
            let mut files = vec!["/proc/uptime"];
            for f in [$(<$layer as HostLayer>::NODE_FILES,)*].concat() {
                if !files.contains(&f) {
                    files.push(f);
                }
            }
            files
        }

        /// The sh functions a node's sampler defines, each named as its
        /// layer's field, and the calls that run them in each sample.
        pub fn node_scripts() -> (String, String) {
            let mut defs = String::new();
            let mut calls = String::new();
            $(if let Some(body) = <$layer as HostLayer>::node_script() {
                defs.push_str(&format!("{}() {{ {body} }}; ", stringify!($field)));
                calls.push_str(&format!("{}; ", stringify!($field)));
            })*
            (defs, calls)
        }

        /// `strata batch <layer>`'s printer, for a host layer.
        pub fn report(
            layer: LayerId,
            fs: RootFs,
            opts: &HostOptions,
            how: &ReportOptions,
        ) -> Option<Box<dyn Report>> {
            $(if layer == <$layer as HostLayer>::ID {
                return Some(<$layer as HostLayer>::report(fs, opts, how));
            })*
            None
        }

        /// Whether `layer` reads on a thread of its own.
        pub fn own_thread(layer: LayerId, opts: &HostOptions) -> bool {
            $(if layer == <$layer as HostLayer>::ID {
                return <$layer as HostLayer>::own_thread(opts);
            })*
            false
        }

        /// A host layer's reading or why there is none, whatever the layer.
        #[derive(Debug)]
        pub enum HostSample {
            $($variant(Result<<$layer as HostLayer>::Sample, SampleError>),)*
        }

        /// A host layer's figures over one interval.
        #[derive(Debug)]
        pub enum HostStep {
            $($variant(<$layer as HostLayer>::Tick),)*
        }

        impl HostStep {
            pub fn layer(&self) -> LayerId {
                match self {
                    $(HostStep::$variant(_) => <$layer as HostLayer>::ID,)*
                }
            }

            pub fn at_ms(&self) -> i64 {
                match self {
                    $(HostStep::$variant(t) => <$layer as HostLayer>::tick_ms(t),)*
                }
            }

            pub fn itv_cs(&self) -> Option<u64> {
                match self {
                    $(HostStep::$variant(t) => <$layer as HostLayer>::itv_cs(t),)*
                }
            }

            /// As `strata batch` prints it.
            pub fn print(&self, how: &ReportOptions, header_done: &mut bool) -> String {
                match self {
                    $(HostStep::$variant(t) => <$layer as HostLayer>::print(t, how, header_done),)*
                }
            }

            /// Its figures in `strata summary`.
            pub fn summarize(&self, put: &mut dyn FnMut(&str, &'static str, Option<f64>)) {
                match self {
                    $(HostStep::$variant(t) => <$layer as HostLayer>::summarize(Some(t), put),)*
                }
            }
        }

        /// The figures a summary lists of every host layer even when they
        /// are never known, each with its layer.
        pub fn summarize_unknown(put: &mut dyn FnMut(LayerId, &str, &'static str, Option<f64>)) {
            $(<$layer as HostLayer>::summarize(None, &mut |e, f, v| {
                put(<$layer as HostLayer>::ID, e, f, v)
            });)*
        }

        /// A host layer's CSV header; `None` for the other layers.
        pub fn csv_header(layer: LayerId, how: &ReportOptions) -> Option<String> {
            $(if layer == <$layer as HostLayer>::ID {
                return Some(<$layer as HostLayer>::csv_header(how));
            })*
            None
        }

        /// Every host layer's metric families, each with its layer.
        pub fn families() -> Vec<(LayerId, &'static Family)> {
            let mut out = Vec::new();
            $(out.extend(<$layer as HostLayer>::families().into_iter().map(|f| (<$layer as HostLayer>::ID, f)));)*
            out
        }

        /// Whether `layer` is a host layer (every host, nodes too, has it).
        pub fn is_host_layer(layer: LayerId) -> bool {
            [$(<$layer as HostLayer>::ID,)*].contains(&layer)
        }

        /// One host's baselines without the app: export's.
        #[derive(Default)]
        pub struct HostBaselines {
            $($field: <$layer as HostLayer>::Baseline,)*
        }

        impl HostBaselines {
            /// A reading's tick (or why there is none), and its layer.
            pub fn tick(&mut self, sample: HostSample) -> (LayerId, Result<HostStep, SampleError>) {
                match sample {
                    $(HostSample::$variant(r) => (
                        <$layer as HostLayer>::ID,
                        r.map(|s| HostStep::$variant(<$layer as HostLayer>::tick(&mut self.$field, &s))),
                    ),)*
                }
            }
        }

        /// One host's layers in the app.
        #[derive(Debug)]
        pub struct HostLayers {
            $(pub $field: <$layer as HostLayer>::State,)*
        }

        impl HostLayers {
            pub fn new(window: &Window) -> Self {
                HostLayers {
                    $($field: <<$layer as HostLayer>::State as HostState>::new(window),)*
                }
            }

            /// Why a layer has no reading now, if it has none.
            pub fn error(&self, layer: LayerId) -> Option<&SampleError> {
                $(if layer == <$layer as HostLayer>::ID {
                    return self.$field.layer().error.as_ref();
                })*
                None
            }

            /// Whether a layer's newest reading succeeded; `None` before
            /// its first reading or failure.
            pub fn up(&self, layer: LayerId) -> Option<bool> {
                $(if layer == <$layer as HostLayer>::ID {
                    let l = self.$field.layer();
                    return match (&l.error, &l.latest) {
                        (Some(_), _) => Some(false),
                        (None, Some(_)) => Some(true),
                        (None, None) => None,
                    };
                })*
                None
            }

            pub fn names_held(&self) -> usize {
                0 $(+ self.$field.names_held())*
            }

            pub fn freeze(&mut self) {
                $(self.$field.freeze();)*
            }

            pub fn thaw(&mut self) {
                $(self.$field.thaw();)*
            }
        }
    };
}
host_layers!(def_sources);
