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

/// The engine's layer roots: internal headers are named by folder, "heif/sy_heif.h".
let engineRoots = ["core", "media", "pipelines"].map { Context.packageDirectory + "/CSources/" + $0 }

/// One engine layer: a C target whose own folders and the layer roots `below`
/// it are its header path (the public include/ folders come with `dependencies`).
/// A layer above is on neither, so an upward #include fails to build.
func engineTarget(_ name: String, path: String, dependencies: [Target.Dependency], below: [String]) -> Target {
    .target(
        name: name,
        dependencies: dependencies,
        path: "CSources/" + path,
        cSettings: [.define("_GNU_SOURCE"), .headerSearchPath(".")] + below.map { .headerSearchPath("../" + $0) },
        linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("m")]
    )
}

let package = Package(
    name: "Shiying",
    products: [
        .library(name: "Shiying", targets: ["Shiying"]),
        .library(name: "ShiyingLibrary", targets: ["ShiyingLibrary"]),
        .library(name: "ShiyingOrganize", targets: ["ShiyingOrganize"]),
        .library(name: "ShiyingCore", targets: ["ShiyingCore"]),
        .executable(name: "shiying", targets: ["shiying"]),
    ],
    targets: [
        systemCodec("CJPEG", pkgConfig: "libjpeg", apt: "libjpeg62-turbo-dev"),
        systemCodec("CHeif", pkgConfig: "libheif", apt: "libheif-dev"),
        systemCodec("CX265", pkgConfig: "x265", apt: "libx265-dev"),
        systemCodec("CAVCodec", pkgConfig: "libavcodec", apt: "libavcodec-dev"),
        systemCodec("CAVUtil", pkgConfig: "libavutil", apt: "libavutil-dev"),  // frames, pixel formats, log
        systemCodec("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        systemCodec("CLcms2", pkgConfig: "lcms2", apt: "liblcms2-dev"),
        systemCodec("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        // The engine in layers (README "Architecture"): each C target reaches
        // only the targets below it, so an upward #include does not build.
        engineTarget("CShiyingCore", path: "core",  // base, exif, codecs, colour (each library here only)
                     dependencies: ["CJPEG", "CX265", "CAVCodec", "CAVUtil", "CZlib", "CLcms2"], below: []),
        engineTarget("CShiyingMedia", path: "media",  // containers, still, render, gainmap (libheif fallback)
                     dependencies: ["CShiyingCore", "CHeif"], below: ["core"]),
        engineTarget("CShiying", path: "pipelines",  // collage, edit, video, organize, live, convert
                     dependencies: ["CShiyingMedia"], below: ["core", "media"]),
        // Sample photos for the demo, tests and benchmarks: outside the production path.
        engineTarget("CShiyingFixtures", path: "fixtures", dependencies: ["CShiying"],
                     below: ["core", "media", "pipelines"]),
        // Test-only view of engine internals (containers, writers) for the C API tests.
        .target(name: "CShiyingInternal", dependencies: ["CShiying"], path: "Tests/CShiyingInternal"),
        // The Swift layers' shared vocabulary (ShiyingProgress, CancelHook):
        // pure Swift, below Shiying and ShiyingLibrary, re-exported by Shiying.
        .target(name: "ShiyingCore"),
        .target(name: "Shiying", dependencies: ["CShiying", "ShiyingCore"]),
        .target(name: "ShiyingFixtures", dependencies: ["Shiying", "CShiyingFixtures"]),
        // Search and the record store (SPEC Q1-Q3): pure Swift policies + SQLite.
        .target(name: "ShiyingLibrary", dependencies: ["CSQLite", "ShiyingCore"]),
        // The organize scan pipeline (folder walk, fingerprint workers, OCR,
        // store updates) joins the engine facade to the store. Its own target,
        // above both, so ShiyingLibrary stays engine-free (pure Swift + SQLite,
        // its policies testable without the C engine) and Shiying knows nothing
        // of the store: Shiying <- ShiyingOrganize -> ShiyingLibrary.
        .target(name: "ShiyingOrganize", dependencies: ["Shiying", "ShiyingLibrary"]),
        .executableTarget(name: "shiying", dependencies: ["Shiying", "ShiyingFixtures", "ShiyingLibrary", "ShiyingOrganize"]),
        .executableTarget(
            name: "Benchmarks", dependencies: ["Shiying", "ShiyingFixtures", "ShiyingLibrary"], path: "Benchmarks",
            exclude: ["Thresholds", "vips_longimage.py", "motion_photo_reencode.py"]
        ),
        .testTarget(name: "ShiyingTests", dependencies: ["Shiying", "ShiyingFixtures"]),
        .testTarget(
            name: "CShiyingTests", dependencies: ["CShiying", "CShiyingFixtures", "CShiyingInternal"],
            swiftSettings: [.unsafeFlags(engineRoots.flatMap { ["-Xcc", "-I" + $0] })]
        ),
        .testTarget(name: "ShiyingLibraryTests", dependencies: ["ShiyingLibrary", "ShiyingOrganize", "Shiying", "ShiyingFixtures"]),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
