/// The config's `console` section: where the console writes files, and keys remapped, e.g.
///
///     "console": { "exportFolder": "~/tickets", "keys": { "grant": "G", "revoke": ["X", "Delete"] } }
///
/// `exportFolder` is an absolute path or one under `~`; without it the console writes case files
/// (`e`) and saved values (`s` in the pager) to the XDG download folder (see `ExportFolder`).
/// `keys` maps a command (as `:` names it) to the key or keys that run it instead of its own;
/// the console checks the names when it opens (ConsoleUI's `KeyMap`).
public struct ConsoleSettings: Sendable, Equatable {
    /// Where case files and saved values go (absolute, or starting with `~/`), nil: the default.
    public var exportFolder: String?
    /// Command name → the keys that run it (as written in the config: "G", "Ctrl-G", "F2", "Space").
    public var keys: [String: [String]]

    public init(exportFolder: String? = nil, keys: [String: [String]] = [:]) {
        self.exportFolder = exportFolder
        self.keys = keys
    }

    /// The most commands remapped, and keys per command.
    public static let maxRemapped = 100
    public static let maxKeysPerCommand = 4

    /// The longest path accepted.
    public static let maxPathBytes = 1024
}

/// Reads the `console` section.
struct ConsoleSettingsParser {
    let source: String

    static let keys = ["exportFolder", "keys"]

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
        if let keys = section["keys"] {
            let map = try keys.object()
            guard map.keys.count <= ConsoleSettings.maxRemapped else {
                throw keys.error("\(map.keys.count) commands is more than may be remapped (\(ConsoleSettings.maxRemapped))")
            }
            for command in map.keys {
                guard let value = map[command] else { continue }
                let names = try (value.raw is String ? [value] : value.array()).map { try $0.name(what: "a key") }
                guard !names.isEmpty, names.count <= ConsoleSettings.maxKeysPerCommand, names.allSatisfy({ $0.count <= 16 }) else {
                    throw value.error("give 1 to \(ConsoleSettings.maxKeysPerCommand) keys, each like \"G\", \"Ctrl-G\", \"F2\" or \"Space\"")
                }
                settings.keys[command] = names
            }
        }
        return settings
    }
}
