import Foundation

/// Where the console writes files (case files with `e`, values saved with `s` in the pager):
/// never the folder it happened to be started in. In order:
/// 1. the config's `console.exportFolder`;
/// 2. the XDG download folder: `XDG_DOWNLOAD_DIR` from the environment, else from
///    `$XDG_CONFIG_HOME/user-dirs.dirs` (`~/.config/user-dirs.dirs`), as `xdg-user-dir DOWNLOAD` says;
/// 3. `~/Downloads`.
/// The folder is made (mode 0700) when the first file is written. The help, the save prompt and
/// every "saved" line name it.
public enum ExportFolder {
    /// The folder, and where it came from ("config console.exportFolder", "XDG download folder",
    /// "~/Downloads"); nil when there is no home to put it under and none is configured.
    public static func resolve(configured: String?, environment: [String: String], home: String?) -> (path: String, origin: String)? {
        let home = home ?? environment["HOME"]
        func expand(_ path: String) -> String? {
            guard path == "~" || path.hasPrefix("~/") else { return path }
            guard let home, !home.isEmpty else { return nil }
            return home + path.dropFirst()
        }
        if let configured, let path = expand(configured) { return (path, "config console.exportFolder") }
        if let xdg = environment["XDG_DOWNLOAD_DIR"], let path = userDir(xdg, home: home) { return (path, "XDG_DOWNLOAD_DIR") }
        if let home, !home.isEmpty {
            let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
            if let text = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8),  // absent: the usual case
               let path = downloadDir(inUserDirs: text, home: home) {
                return (path, "XDG download folder (user-dirs.dirs)")
            }
            return (home + "/Downloads", "~/Downloads")
        }
        return nil
    }

    /// `XDG_DOWNLOAD_DIR="$HOME/Downloads"` from a user-dirs.dirs file, `$HOME` replaced.
    static func downloadDir(inUserDirs text: String, home: String) -> String? {
        for line in text.split(separator: "\n").prefix(200) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("XDG_DOWNLOAD_DIR=") else { continue }
            var value = String(trimmed.dropFirst("XDG_DOWNLOAD_DIR=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return userDir(value, home: home)
        }
        return nil
    }

    /// An XDG user folder value: absolute, or under `$HOME`; nil for anything else (the spec
    /// allows only those two), and for `$HOME` itself (that is "no such folder").
    static func userDir(_ value: String, home: String?) -> String? {
        var path = value
        if path.hasPrefix("$HOME") {
            guard let home, !home.isEmpty else { return nil }
            path = home + path.dropFirst("$HOME".count)
        }
        guard path.hasPrefix("/"), path.utf8.count <= 1024 else { return nil }
        let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        return trimmed == home ? nil : trimmed
    }

    /// Makes the folder (and its parents) when missing; the error says what and where.
    static func prepare(_ folder: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? nil : "\(folder) is a file, not a folder (set console.exportFolder in the config)"
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return nil
        } catch {
            return "could not make the folder \(folder): \(error.localizedDescription)"
        }
    }
}
