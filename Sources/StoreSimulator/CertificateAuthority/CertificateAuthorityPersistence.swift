import Foundation
import ReceiptCore

/// Saving a test authority so a demo database made with it can be reopened (and its receipts
/// still verify) in a later run. The directory holds PEM files, the keys PKCS#8 and readable by
/// the owner only (they are test material, but still keys):
///
///     authority.json             {"format":1,"kind":"standard","validFrom":"2020-01-01T00:00:00Z",
///                                 "validUntil":"2040-01-01T00:00:00Z"}
///     root.pem  root.key.pem                         RSA root of the receipt and legacy chains
///     receipt-intermediate.pem / .key.pem   receipt-leaf.pem / .key.pem
///     legacy-intermediate.pem / .key.pem    legacy-leaf.pem / .key.pem
///     jws-root.pem / .key.pem   jws-intermediate.pem / .key.pem   jws-leaf.pem / .key.pem
///
/// Loading re-reads each certificate's serial number and names from its DER and checks that every
/// key matches its certificate.
extension TestCertificateAuthority {
    /// The saved layout's format version.
    static let persistenceFormat = 1

    /// Writes the authority into `directory` (created if needed), replacing what was there.
    public func save(to directory: URL) throws {
        let files: [(String, IssuedCertificate)] = [
            ("root", receiptChain.root), ("receipt-intermediate", receiptChain.intermediate), ("receipt-leaf", receiptChain.leaf),
            ("legacy-intermediate", legacyChain.intermediate), ("legacy-leaf", legacyChain.leaf),
            ("jws-root", jwsChain.root), ("jws-intermediate", jwsChain.intermediate), ("jws-leaf", jwsChain.leaf),
        ]
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, issued) in files {
                try Data(Self.pem(issued.der, label: "CERTIFICATE").utf8)
                    .write(to: directory.appendingPathComponent(name + ".pem"), options: .atomic)
                let keyFile = directory.appendingPathComponent(name + ".key.pem")
                try Data(try issued.privateKey.pkcs8PEM().utf8).write(to: keyFile, options: .atomic)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
            }
            let manifest = JSONValue.object([
                ("format", .int(Int64(Self.persistenceFormat))), ("kind", .string(kind.rawValue)),
                ("validFrom", .string(RFC3339.format(validFrom))), ("validUntil", .string(RFC3339.format(validUntil))),
            ])
            try Data(manifest.serialized().utf8).write(to: directory.appendingPathComponent("authority.json"), options: .atomic)
        } catch let error as ReceiptError {
            throw SimulatorError(.persistence, "cannot save the test authority to \(directory.path): \(error.reason)")
        } catch {
            throw SimulatorError(.persistence, "cannot save the test authority to \(directory.path): \(error.localizedDescription)")
        }
    }

    /// Reads an authority saved with `save(to:)`. Read once per process while its files stay
    /// the same (each one's size, modification time and inode): the console reads its
    /// simulator's authority for the trust store and again for the simulator, nine keys each.
    public static func load(from directory: URL) throws -> TestCertificateAuthority {
        let path = directory.standardizedFileURL.path
        let stamp = LoadedAuthorities.stamp(folder: path)
        if let stamp, let known = LoadedAuthorities.shared.authority(path, stamp) { return known }
        let authority = try read(from: directory)
        if let stamp { LoadedAuthorities.shared.remember(authority, path, stamp) }
        return authority
    }

    /// Reads an authority saved with `save(to:)` from its files.
    private static func read(from directory: URL) throws -> TestCertificateAuthority {
        do {
            let manifest = try JSONObject(parsing: Array(try Data(contentsOf: directory.appendingPathComponent("authority.json"))),
                                          what: "authority.json")
            guard try manifest.int("format") == Int64(persistenceFormat) else {
                throw SimulatorError(.persistence, "authority.json: format is not \(persistenceFormat)")
            }
            guard let kind = try manifest.string("kind").flatMap(Kind.init(rawValue:)),
                  let validFrom = try manifest.string("validFrom").flatMap(RFC3339.parse),
                  let validUntil = try manifest.string("validUntil").flatMap(RFC3339.parse) else {
                throw SimulatorError(.persistence, "authority.json: kind, validFrom or validUntil missing or unreadable")
            }
            func read(_ name: String) throws -> IssuedCertificate {
                let certificate = try Certificate(pemOrDER: Array(try Data(contentsOf: directory.appendingPathComponent(name + ".pem"))))
                let keyText = String(decoding: try Data(contentsOf: directory.appendingPathComponent(name + ".key.pem")), as: UTF8.self)
                return try IssuedCertificate.reloaded(certificate, key: try PrivateKey.fromPEM(keyText), name: name)
            }
            let root = try read("root")
            let receipt = SigningChain(root: root, intermediate: try read("receipt-intermediate"), leaf: try read("receipt-leaf"))
            let legacy = SigningChain(root: root, intermediate: try read("legacy-intermediate"), leaf: try read("legacy-leaf"))
            let jws = SigningChain(root: try read("jws-root"), intermediate: try read("jws-intermediate"), leaf: try read("jws-leaf"))
            return TestCertificateAuthority(kind: kind, validFrom: validFrom, validUntil: validUntil,
                                            receiptChain: receipt, legacyChain: legacy, jwsChain: jws)
        } catch let error as SimulatorError {
            throw error
        } catch let error as ReceiptError {
            throw SimulatorError(.persistence, "cannot load the test authority from \(directory.path): \(error.reason)")
        } catch {
            throw SimulatorError(.persistence, "cannot load the test authority from \(directory.path): \(error.localizedDescription)")
        }
    }

    /// DER as PEM text with 64-character lines.
    static func pem(_ der: [UInt8], label: String) -> String {
        let base64 = Array(Data(der).base64EncodedString())
        let lines = stride(from: 0, to: base64.count, by: 64).map { String(base64[$0..<min($0 + 64, base64.count)]) }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }
}

extension IssuedCertificate {
    /// An issued certificate rebuilt from its DER and key: serial number and names read back from
    ///
    ///     TBSCertificate ::= SEQUENCE { version [0] EXPLICIT, serialNumber INTEGER, signature AlgorithmIdentifier,
    ///                                   issuer Name, validity Validity, subject Name, … }
    static func reloaded(_ certificate: Certificate, key: PrivateKey, name: String) throws -> IssuedCertificate {
        let spki = try certificate.publicKey().subjectPublicKeyInfo
        guard try key.publicKey().subjectPublicKeyInfo == spki else {
            throw SimulatorError(.persistence, "\(name).key.pem is not the key of \(name).pem")
        }
        var outer = try ASN1Reader.parseSingle(certificate.der, "\(name) certificate").expect(.sequence, "\(name) certificate").children()
        var tbs = try outer.read(.sequence, "\(name) TBSCertificate").children()
        _ = try tbs.readOptional(.context(0, constructed: true))
        var serial = Array(try tbs.read(.integer, "\(name) serial number").content)
        while serial.count > 1, serial.first == 0 { serial.removeFirst() }
        _ = try tbs.read(.sequence, "\(name) signature algorithm")
        let issuer = try distinguishedName(try tbs.read(.sequence, "\(name) issuer"), what: "\(name) issuer")
        _ = try tbs.read(.sequence, "\(name) validity")
        let subject = try distinguishedName(try tbs.read(.sequence, "\(name) subject"), what: "\(name) subject")
        return IssuedCertificate(certificate: certificate, privateKey: key, subject: subject, issuer: issuer,
                                 serialNumber: serial, subjectKeyIdentifier: try CertificateTemplate.keyIdentifier(spki))
    }

    /// A Name of single-attribute RDNs with the types and string types `DistinguishedName` writes.
    private static func distinguishedName(_ node: ASN1Node, what: String) throws -> DistinguishedName {
        var components: [DistinguishedName.Component] = []
        var rdns = node.children()
        while let rdn = try rdns.readIfPresent() {
            var set = try rdn.expect(.set, "\(what) RDN").children()
            var pair = try set.read(.sequence, "\(what) attribute").children()
            let oid = try pair.read(.objectIdentifier, "\(what) attribute type").objectIdentifier("\(what) attribute type")
            let value = try pair.read("\(what) attribute value")
            let types: [String: DistinguishedName.AttributeType] = [
                "2.5.4.3": .commonName, "2.5.4.11": .organizationalUnit, "2.5.4.10": .organization, "2.5.4.6": .country,
            ]
            guard let type = types[oid] else { throw SimulatorError(.persistence, "\(what): attribute \(oid) is not one the authority writes") }
            let stringType: DistinguishedName.StringType
            switch value.tag {
            case .utf8String: stringType = .utf8
            case .printableString: stringType = .printable
            default: throw SimulatorError(.persistence, "\(what): attribute \(oid) is neither UTF8String nor PrintableString")
            }
            components.append(DistinguishedName.Component(type, String(decoding: value.content, as: UTF8.self), stringType))
            try set.finish("\(what) RDN")
        }
        return DistinguishedName(components)
    }
}

/// The authorities this process has read, by folder, each with its files' sizes, modification
/// times and inodes when read (a changed file is read again).
final class LoadedAuthorities: @unchecked Sendable {
    static let shared = LoadedAuthorities()
    private let lock = NSLock()
    private var known: [String: (stamp: [Int64], authority: TestCertificateAuthority)] = [:]

    /// Size, modification time in nanoseconds and inode of authority.json and of each PEM file
    /// in `folder`; nil when one cannot be read.
    static func stamp(folder: String) -> [Int64]? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        var stamp: [Int64] = []
        for name in names.sorted() where name == "authority.json" || name.hasSuffix(".pem") {
            var info = stat()
            guard stat(folder + "/" + name, &info) == 0 else { return nil }
            stamp += [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ino)]
        }
        return stamp.isEmpty ? nil : stamp
    }

    func authority(_ path: String, _ stamp: [Int64]) -> TestCertificateAuthority? {
        lock.withLock { known[path].flatMap { $0.stamp == stamp ? $0.authority : nil } }
    }

    func remember(_ authority: TestCertificateAuthority, _ path: String, _ stamp: [Int64]) {
        lock.withLock { known[path] = (stamp, authority) }
    }
}
