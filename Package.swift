// swift-tools-version:6.0
// Shiying Core: a C imaging engine (CShiying) with a Swift facade (Shiying),
// the `shiying` command-line tool and the `Benchmarks` executable.
import PackageDescription

/// Debian 12 codec libraries, found through pkg-config (see Makefile `deps`).
func systemCodec(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(
        name: name,
        path: "CSources/system/\(name)",
        pkgConfig: pkgConfig,
        providers: [.apt([apt])]
    )
}

let package = Package(
    name: "Shiying",
    products: [
        .library(name: "Shiying", targets: ["Shiying"]),
        .library(name: "ShiyingLibrary", targets: ["ShiyingLibrary"]),
        .executable(name: "shiying", targets: ["shiying"]),
    ],
    targets: [
        systemCodec("CJPEG", pkgConfig: "libjpeg", apt: "libjpeg62-turbo-dev"),
        systemCodec("CTurboJPEG", pkgConfig: "libturbojpeg", apt: "libturbojpeg0-dev"),
        systemCodec("CHeif", pkgConfig: "libheif", apt: "libheif-dev"),
        systemCodec("CX265", pkgConfig: "x265", apt: "libx265-dev"),
        systemCodec("CDe265", pkgConfig: "libde265", apt: "libde265-dev"),
        systemCodec("COpenH264", pkgConfig: "openh264", apt: "libopenh264-dev"),
        systemCodec("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        systemCodec("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        .target(
            name: "CShiying",
            dependencies: ["CJPEG", "CTurboJPEG", "CHeif", "CX265", "CDe265", "COpenH264", "CZlib"],
            path: "CSources",
            exclude: ["system"],
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("m")]
        ),
        .target(name: "Shiying", dependencies: ["CShiying"]),
        // Search and the record store (SPEC Q1-Q3): pure Swift policies + SQLite.
        .target(name: "ShiyingLibrary", dependencies: ["CSQLite"]),
        .executableTarget(name: "shiying", dependencies: ["Shiying", "ShiyingLibrary"]),
        .executableTarget(
            name: "Benchmarks", dependencies: ["Shiying", "ShiyingLibrary"], path: "Benchmarks",
            exclude: ["Thresholds", "vips_longimage.py"]
        ),
        .testTarget(name: "ShiyingTests", dependencies: ["Shiying"]),
        .testTarget(name: "CShiyingTests", dependencies: ["CShiying"]),
        .testTarget(name: "ShiyingLibraryTests", dependencies: ["ShiyingLibrary"]),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
