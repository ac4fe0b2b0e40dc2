import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// The README's nginx block in front of `serve --trust-proxy 127.0.0.1`, as written: the test
/// takes it from README.md (between `<!-- nginx-snippet -->` markers, so the two cannot drift),
/// changes only the ports, the upstream and the certificate files, runs nginx as a child
/// process on loopback, and sends a purchase through it with curl over TLS. The purchase is
/// answered as serve answers it, and its audit entry names the client nginx saw, never the
/// address the client wrote into its own X-Forwarded-For.
@Suite(.serialized) struct ReverseProxyTests {
    static let nginxCandidates = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
    static let startMarker = "<!-- nginx-snippet -->"
    static let endMarker = "<!-- /nginx-snippet -->"

    @Test func theReadmesNginxBlockForwardsAPurchaseAndTheAuditNamesTheClientNginxSaw() throws {
        let nginx = try #require(Self.nginxCandidates.first { FileManager.default.isExecutableFile(atPath: $0) },
                                 "nginx is not installed (looked in \(Self.nginxCandidates.joined(separator: ", "))): `make deps` installs it (Debian's nginx package)")
        let snippet = try Self.readmeSnippet()
        let served = try ServeProcessTests.Served(more: ["--trust-proxy", "127.0.0.1"])
        defer { served.process.kill(SIGTERM); _ = served.process.wait() }
        let proxy = try NginxProcess(binary: nginx, snippet: snippet, upstreamPort: served.port, in: served.workspace.directory)
        defer { proxy.stop() }

        // The client connects from 127.0.0.2 (all of 127/8 is loopback) and claims to be 203.0.113.9.
        let jws = try served.jws("2000000000000901")
        let body = "{\"customer\":\"ada\",\"signedTransactions\":[\"\(jws)\"]}"
        let answer = try Self.curl(["-sk", "--interface", "127.0.0.2", "-X", "POST", "-H", "Authorization: Bearer \(served.token)",
                                    "-H", "Content-Type: application/json", "-H", "X-Forwarded-For: 203.0.113.9",
                                    "--data-binary", body, "-w", "\n%{http_code}", "https://127.0.0.1:\(proxy.port)/v1/purchases"])
        let status = answer.split(separator: "\n").last.map(String.init)
        #expect(status == "200", "through nginx: \(answer) (nginx's log: \(proxy.errorLog))")
        let json = try JSONSerialization.jsonObject(with: Data(answer.utf8.dropLast((status?.utf8.count ?? 0)))) as? [String: Any]
        let report = ((json?["results"] as? [[String: Any]])?.first?["transactions"] as? [[String: Any]])?.first
        #expect(report?["transactionId"] as? String == "2000000000000901" && report?["outcome"] as? String == "recorded", "\(answer)")

        let sources = try served.workspace.sql("SELECT json_extract(details, '$.source') FROM audit_log WHERE action = 'import'")
        #expect(sources.count == 1 && sources.first?.hasPrefix("serve app from 127.0.0.2 via 127.0.0.1:") == true,
                "the audit names the client nginx saw: \(sources)")
        #expect(!sources.joined().contains("203.0.113.9"), "the client's own X-Forwarded-For is not believed: \(sources)")
        // The block's other location: /healthz reaches serve too.
        #expect(try Self.curl(["-sk", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(proxy.port)/healthz"]) == "200")
    }

    /// The block between the README's markers, without its code fence.
    static func readmeSnippet() throws -> String {
        let readme = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: startMarker), let end = readme.range(of: endMarker, range: start.upperBound..<readme.endIndex) else {
            throw ServeProcessTests.CLIRunnerFailure("README.md has no \(startMarker) … \(endMarker) block")
        }
        let lines = readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("```") }
        return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs curl and returns what it printed (bounded: curl gives up after 30 s).
    static func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--max-time", "30"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: printed, as: UTF8.self)
    }

    /// nginx in the foreground on a free loopback port, everything it writes in `directory`,
    /// running the README's block with the ports, the upstream and the certificate changed.
    final class NginxProcess {
        let port: Int
        private let process: Process
        private let directory: URL

        init(binary: String, snippet: String, upstreamPort: Int, in parent: URL) throws {
            directory = parent.appendingPathComponent("nginx")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // The test authority's receipt leaf stands in for Let's Encrypt's certificate (curl -k: the
            // test is about what nginx forwards, not whom the certificate names).
            let authority = try TestCertificateAuthority.shared()
            let certificate = directory.appendingPathComponent("fullchain.pem")
            let key = directory.appendingPathComponent("privkey.pem")
            try Data(Self.pem(authority.receiptLeaf.der).utf8).write(to: certificate)
            try Data(try authority.receiptLeafKey.pkcs8PEM().utf8).write(to: key)
            var lastFailure = ""
            // A port found free may be taken before nginx binds it: a few tries, each with another port.
            for _ in 0..<5 {
                let port = try Self.freePort()
                let server = try Self.substitute(snippet, port: port, upstreamPort: upstreamPort, certificate: certificate.path, key: key.path)
                let config = Self.config(server: server, directory: directory.path)
                let configURL = directory.appendingPathComponent("nginx.conf")
                try Data(config.utf8).write(to: configURL)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = ["-p", directory.path + "/", "-c", configURL.path, "-e", directory.appendingPathComponent("error.log").path]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = try FileHandle(forWritingTo: Self.emptyFile(directory.appendingPathComponent("stderr.log")))
                try process.run()
                // Ready once its port takes connections (at most 200 tries, 25 ms apart), or ended.
                for _ in 0..<200 where process.isRunning {
                    if (try? LoopbackHTTP.Connection(port: port)) != nil {
                        self.port = port
                        self.process = process
                        return
                    }
                    usleep(25_000)
                }
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                lastFailure = (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
                lastFailure += (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                guard lastFailure.contains("Address already in use") else { break }
            }
            throw ServeProcessTests.CLIRunnerFailure("nginx did not start: \(lastFailure)")
        }

        /// What nginx logged (for a failure's message).
        var errorLog: String { (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "" }

        /// Stops nginx (SIGTERM: a fast shutdown; SIGKILL if it is still there 10 s later) and waits for it.
        func stop() {
            if process.isRunning { process.terminate() }
            for _ in 0..<400 where process.isRunning { usleep(25_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        /// The README's block with its listen port, its upstream and its certificate files replaced:
        /// each must be there exactly as the README has it, or the test says which is not.
        static func substitute(_ snippet: String, port: Int, upstreamPort: Int, certificate: String, key: String) throws -> String {
            var text = snippet
            let replacements = [
                ("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"),
                ("http://127.0.0.1:8080", "http://127.0.0.1:\(upstreamPort)"),
                ("/etc/letsencrypt/live/purchases.example.com/fullchain.pem", certificate),
                ("/etc/letsencrypt/live/purchases.example.com/privkey.pem", key),
            ]
            for (from, to) in replacements {
                guard text.contains(from) else { throw ServeProcessTests.CLIRunnerFailure("README's nginx block no longer has '\(from)'") }
                text = text.replacingOccurrences(of: from, with: to)
            }
            return text
        }

        /// A whole configuration around the `server` block for a user without root: in the
        /// foreground, its pid file, logs and temporary files in `directory`. (The master process
        /// stays: nginx without one keeps the signal mask it inherits, and the test process's
        /// blocks SIGTERM.)
        static func config(server: String, directory: String) -> String {
            """
            daemon off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log info;
            events { worker_connections 64; }
            http {
                access_log \(directory)/access.log;
                client_body_temp_path \(directory)/client_body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
            \(server.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
            }

            """
        }

        /// A loopback port nobody listens on right now (the kernel's choice, then let go).
        static func freePort() throws -> Int {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw ServeProcessTests.CLIRunnerFailure("socket(): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
            }
            guard bound else { throw ServeProcessTests.CLIRunnerFailure("no free loopback port: \(String(cString: strerror(errno)))") }
            return Int(UInt16(bigEndian: address.sin_port))
        }

        static func pem(_ der: [UInt8]) -> String {
            let base64 = Data(der).base64EncodedString()
            var lines: [String] = []
            var index = base64.startIndex
            while index < base64.endIndex {
                let next = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
                lines.append(String(base64[index..<next]))
                index = next
            }
            return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
        }

        static func emptyFile(_ url: URL) -> URL {
            FileManager.default.createFile(atPath: url.path, contents: nil)
            return url
        }
    }
}
