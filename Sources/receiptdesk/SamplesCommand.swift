import Foundation
import ReceiptCore

/// `receiptdesk samples [DIR]`: decodes and verifies every sample artefact and prints its tree.
/// What `make run` shows until the console exists.
enum SamplesCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        guard let directory = try args.finish(maxPositionals: 1).first ?? defaultDirectory() else {
            throw CommandFailure.usage("no DIR given, and no Assets/Samples in the working directory, beside the binary or in the sources it was built from: give DIR")
        }
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { [".b64", ".jws", ".json"].contains(where: $0.hasSuffix) }.sorted()
        } catch {
            throw CommandFailure.usage("\(directory): cannot list the directory")
        }
        let verifier = ReceiptVerifier(trust: try TrustStore.apple())
        let now = Date()
        var tally: [String: Int] = [:]
        for file in files {
            let path = directory + "/" + file
            print(String(repeating: "━", count: 78))
            print("▶ \(file)")
            do {
                let artefact = try ReceiptDecoder.decode(try InputReader.read(path))
                let verdict = verifier.verify(artefact)
                tally[verdict.status.rawValue, default: 0] += 1
                print(ReportText.render(artefact, verdict: verdict, now: now))
            } catch {
                tally["not decodable", default: 0] += 1
                print("not decodable: \(CommandFailure.from(error).message)")
            }
        }
        print(String(repeating: "━", count: 78))
        print("\(files.count) sample\(files.count == 1 ? "" : "s"): " + tally.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        return .ok
    }

    /// The repository's `Assets/Samples`: in the working directory, else above the binary
    /// (`.build/debug/receiptdesk` in a clone), else where the sources were when it was built.
    static func defaultDirectory() -> String? {
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var folder = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
        var isDirectory: ObjCBool = false
        return candidates.map { $0.appendingPathComponent("Assets/Samples").path }
            .first { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue }
    }
}
