// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "receiptdesk",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "receiptdesk", targets: ["receiptdesk"]),
        .library(name: "ReceiptCore", targets: ["ReceiptCore"]),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses", providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "ReceiptCore", dependencies: ["COpenSSL"], path: "Sources/ReceiptCore"),
        // Apple over the network (verifyReceipt, the App Store Server API): the core stays offline.
        .target(name: "AppStoreAPI", dependencies: ["ReceiptCore"], path: "Sources/AppStoreAPI"),
        .target(name: "PurchaseStore", dependencies: ["ReceiptCore", "AppStoreAPI", "CSQLite", "CLibPQ"], path: "Sources/PurchaseStore"),
        .target(name: "LiveService", dependencies: ["PurchaseStore", "ReceiptCore", "AppStoreAPI", "HTTPService"], path: "Sources/LiveService"),
        // The long-running service's HTTP server (libmicrohttpd) and its metrics; no routes.
        .target(name: "HTTPService", dependencies: ["CMicroHTTPD"], path: "Sources/HTTPService"),
        .target(name: "StoreSimulator", dependencies: ["ReceiptCore"], path: "Sources/StoreSimulator"),
        .target(name: "ConsoleUI", dependencies: ["PurchaseStore", "ReceiptCore"], path: "Sources/ConsoleUI"),
        .target(name: "ConsoleCurses", dependencies: ["ConsoleUI", "CNcurses"], path: "Sources/ConsoleCurses"),
        // Every bench and soak case; the command line calls it, no product module imports it.
        .target(name: "Benchmarks", dependencies: ["ReceiptCore", "AppStoreAPI", "PurchaseStore", "StoreSimulator", "ConsoleUI", "LiveService", "HTTPService"],
                path: "Sources/Benchmarks"),
        .executableTarget(name: "receiptdesk", dependencies: ["ReceiptCore", "AppStoreAPI", "PurchaseStore", "StoreSimulator", "ConsoleUI", "ConsoleCurses", "Benchmarks", "LiveService", "HTTPService"],
                          path: "Sources/receiptdesk"),
        .testTarget(name: "ReceiptCoreTests", dependencies: ["ReceiptCore", "StoreSimulator"],
                    path: "Tests/ReceiptCoreTests"),
        .testTarget(name: "AppStoreAPITests", dependencies: ["AppStoreAPI", "ReceiptCore", "StoreSimulator"],
                    path: "Tests/AppStoreAPITests"),
        .testTarget(name: "PurchaseStoreTests", dependencies: ["PurchaseStore", "ReceiptCore", "AppStoreAPI", "StoreSimulator"],
                    path: "Tests/PurchaseStoreTests"),
        .testTarget(name: "ReceiptDeskCLITests", dependencies: ["receiptdesk", "ReceiptCore", "AppStoreAPI", "StoreSimulator"],
                    path: "Tests/ReceiptDeskCLITests"),
        .testTarget(name: "ConsoleUITests", dependencies: ["ConsoleUI", "PurchaseStore", "ReceiptCore", "AppStoreAPI", "StoreSimulator", "receiptdesk", "Benchmarks"],
                    path: "Tests/ConsoleUITests", exclude: ["Snapshots"]),
        .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks", "ReceiptCore", "PurchaseStore"], path: "Tests/BenchmarksTests"),
        .testTarget(name: "HTTPServiceTests", dependencies: ["HTTPService", "LiveService", "PurchaseStore", "ReceiptCore", "StoreSimulator"],
                    path: "Tests/HTTPServiceTests"),
        .testTarget(name: "StoreSimulatorTests", dependencies: ["StoreSimulator", "ReceiptCore", "AppStoreAPI"],
                    path: "Tests/StoreSimulatorTests"),
    ]
)
