/// The config's `console` section: where the console writes files, e.g.
///
///     "console": { "exportFolder": "~/tickets" }
///
/// `exportFolder` is an absolute path or one under `~`; without it the console writes case files
/// (`e`) and saved values (`s` in the pager) to the XDG download folder (see `ExportFolder`).
public struct ConsoleSettings: Sendable, Equatable {
    /// Where case files and saved values go (absolute, or starting with `~/`), nil: the default.
    public var exportFolder: String?
    public init(exportFolder: String? = nil) {
        self.exportFolder = exportFolder
    }

    /// The longest path accepted.
    public static let maxPathBytes = 1024
}

/// Reads the `console` section.
struct ConsoleSettingsParser {
    let source: String

    static let keys = ["exportFolder"]

    func parse(_ value: ConfigValue?) throws -> ConsoleSettings {
        guard let value else { return ConsoleSettings() }
        let section = try value.object()
        try section.checkKeys(known: Self.keys)
        var settings = ConsoleSettings()
        if let folder = section["exportFolder"] {
            let path = try folder.name(what: "a folder")
            guard path.utf8.count <= ConsoleSettings.maxPathBytes else {
                throw folder.error("\(path.utf8.count) bytes is longer than a folder path may be (\(ConsoleSettings.maxPathBytes))")
            }
            guard path.hasPrefix("/") || path == "~" || path.hasPrefix("~/") else {
                throw folder.error("\(ConfigText.quoted(path)) is relative: give an absolute path or one under ~/ (the console never writes into whatever folder it was started in)")
            }
            settings.exportFolder = path
        }
        return settings
    }
}
