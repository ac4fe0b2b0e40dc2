import Foundation
import ReceiptCore
import Testing
@testable import ConsoleUI

/// Issue 29: files written by `e` and the pager's `s` go to a documented folder (the config's,
/// else the XDG download folder), never silently into the working directory.
@Suite("Export folder")
struct ExportFolderTests {
    @Test func theConfigsFolderThenXDGThenDownloads() throws {
        let home = "/home/mei"
        #expect(ExportFolder.resolve(configured: "~/tickets", environment: ["XDG_DOWNLOAD_DIR": "/srv/dl"], home: home)?.path == "/home/mei/tickets")
        #expect(ExportFolder.resolve(configured: "/var/cases", environment: [:], home: home)?.path == "/var/cases")
        #expect(ExportFolder.resolve(configured: nil, environment: ["XDG_DOWNLOAD_DIR": "$HOME/Téléchargements"], home: home)?.path
                == "/home/mei/Téléchargements")
        // Relative or $HOME itself is no download folder (the XDG spec): the next rule applies.
        #expect(ExportFolder.resolve(configured: nil, environment: ["XDG_DOWNLOAD_DIR": "Downloads", "XDG_CONFIG_HOME": "/nonexistent"], home: home)?.path
                == "/home/mei/Downloads")
        #expect(ExportFolder.resolve(configured: nil, environment: ["XDG_DOWNLOAD_DIR": "$HOME/", "XDG_CONFIG_HOME": "/nonexistent"], home: home)?.path
                == "/home/mei/Downloads")
        #expect(ExportFolder.resolve(configured: nil, environment: [:], home: nil) == nil, "no home and no folder configured: no files")
        // user-dirs.dirs, as xdg-user-dirs-update writes it.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xdg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }  // best effort
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOWNLOAD_DIR=\"$HOME/Descargas\"\n"
            .write(to: scratch.appendingPathComponent("user-dirs.dirs"), atomically: true, encoding: .utf8)
        let fromFile = ExportFolder.resolve(configured: nil, environment: ["XDG_CONFIG_HOME": scratch.path], home: home)
        #expect(fromFile?.path == "/home/mei/Descargas" && fromFile?.origin.contains("user-dirs.dirs") == true)
    }

    @Test func aRelativeConfiguredFolderIsRefusedNamingTheKey() throws {
        let text = #"{"console": {"exportFolder": "exports"}}"#
        #expect {
            try StoreConfiguration(json: Array(text.utf8), source: "c.json")
        } throws: { error in
            "\(error)".contains("console.exportFolder") && "\(error)".contains("is relative")
        }
        let good = try StoreConfiguration(json: Array(#"{"console": {"exportFolder": "~/cases"}}"#.utf8), source: "c.json")
        #expect(good.console.exportFolder == "~/cases")
    }

    @Test func eMakesTheFolderAndWritesThereNotInTheWorkingDirectory() throws {
        let f = try ConsoleFixture()
        let folder = f.directory.appendingPathComponent("exports/cases")
        var environment = ConsoleEnvironment(ledger: f.ledger, apple: nil, operatorName: "mei", readOnly: false,
                                             databaseLabel: "purchases.sqlite", clock: { ConsoleFixture.now })
        environment.exportDirectory = folder.path
        let size = ScreenSize(rows: 40, columns: 200)  // wide enough for the scratch folder's long path
        let c = ConsoleController(environment: environment, size: size)
        let screen = VirtualScreen(size: size)
        let before = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
        c.press(.character("e"), on: screen)
        #expect(screen.text.contains("in \(folder.path)"), "\(screen.text)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(written.filter { $0.hasPrefix("case-alice-") }.count == 2, "\(written)")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        // The pager's save: a bare name lands in the folder, and its prompt says so.
        c.press(.character("v"), .character("s"), on: screen)
        #expect(screen.text.contains("in \(folder.path)"), "\(screen.text)")
        c.press(.enter, on: screen)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath) == before)
        // The help names the folder.
        c.press(.escape, .character("?"), on: screen)
        #expect(screen.text.contains("files (e, s) go to \(folder.path)"), "\(screen.text)")
    }
}
