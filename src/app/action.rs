/// Everything a user can ask for. Keys map to these; `App::update` is the
/// only place that applies them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Scroll the disks table's columns.
    Left,
    Right,
    /// Drill down into the selected entity.
    Enter,
    /// Go back up one level (or close the help overlay).
    Back,
    NextPanel,
    PrevPanel,
    GotoPanel(usize),
    TogglePause,
    ToggleHelp,
    CycleTheme,
    SortNext,
    SortPrev,
    SortReverse,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
    FilterCommit,
    FilterCancel,
    TogglePartitions,
    ToggleAllDevices,
    ToggleUnits,
    /// Keys of the passphrase prompt, which takes every key while open.
    PassphraseChar(super::passphrase::Masked),
    PassphraseBackspace,
    PassphraseClear,
    PassphraseSubmit,
    PassphraseDismiss,
    /// Reopens the prompt put off with Esc.
    AskPassphrase,
    /// One cell's disks: all, DISK only, FLASH only.
    CycleGroup,
    /// The panels show the next database node (after the last: the
    /// cluster again).
    CycleNode,
    /// Start or stop recording (`R`).
    ToggleRecord,
    /// Prompt for a marker's label (`m`).
    AddMarker,
    /// Open the list of markers (`M`); in replay, Enter on one goes to it.
    ListMarkers,
    /// Replay: one sample back or forward (`t`, `T`), a minute back or
    /// forward (`<`, `>`), a typed time (`b`), the previous or next marker
    /// (`[`, `]`), faster or slower (`+`, `-`).
    StepBack,
    StepForward,
    JumpBack,
    JumpForward,
    JumpToTime,
    PrevMarker,
    NextMarker,
    Faster,
    Slower,
}
