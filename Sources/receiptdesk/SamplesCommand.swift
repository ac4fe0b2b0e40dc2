import Foundation
import ReceiptCore

/// `receiptdesk samples [DIR]`: decodes and verifies every sample artefact and prints its tree.
/// What `make run` shows until the console exists.
enum SamplesCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let directory = try args.finish(maxPositionals: 1).first ?? "Assets/Samples"
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
        print("\(files.count) samples: " + tally.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        return .ok
    }
}
