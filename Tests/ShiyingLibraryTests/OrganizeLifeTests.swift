// issue 9: "Life" (生活) — SPEC D9 classification and D10 info line.
import ShiyingLibrary
import Testing

@Suite("Organize Life")
struct OrganizeLifeTests {
    @Test("SPEC D9: screenshots, screen recordings and animated images are not Life (system flags only)")
    func systemFlags() {
        #expect(LifeClassifier.decide(LifeFacts(isScreenshot: true)).reason == .screenshot)
        #expect(LifeClassifier.decide(LifeFacts(isScreenRecording: true)).reason == .screenRecording)
        #expect(LifeClassifier.decide(LifeFacts(isAnimated: true)).reason == .animated)
        #expect(LifeClassifier.decide(LifeFacts()).inLife)
    }

    @Test("SPEC D9: a favourited screenshot is still not Life")
    func favouritedScreenshot() {
        let d = LifeClassifier.decide(LifeFacts(isScreenshot: true, isFavorite: true))
        #expect(!d.inLife && d.reason == .screenshot)
    }

    @Test("SPEC D9: no camera data alone is not a reason — a camera-less photo stays in Life")
    func noCameraDataIsNotAScreenshot() {
        let saved = OrganizeAsset(path: "/x/saved.png", width: 800, height: 600, fileBytes: 1, fileSHA256: "f",
                                  pixelSHA256: "p", phash: 0, hasCamera: false)
        #expect(LifeClassifier.decide(LifeFacts(saved)).inLife)
    }

    @Test("SPEC D9: receipts, IDs and full pages of text (from recognized text) are not Life", arguments: [
        ("星巴克\n拿铁 32.00\n可颂 18.50\n合计 50.50\n实收 100.00 找零 49.50", DocumentKind.receipt),
        ("TOTAL 23.40\nTAX 1.87\nVISA ****1234", .receipt),
        ("中华人民共和国\n居民身份证\n公民身份号码 11010519491231002X", .identityDocument),
        ("PASSPORT\nNationality: CHN\nDate of birth 01 JAN 1990", .identityDocument),
        (String(repeating: "这是一份很长的文件，包含很多段落的文字内容。", count: 30), .document),
    ])
    func documentText(_ c: (String, DocumentKind)) {
        let d = LifeClassifier.decide(LifeFacts(recognizedText: c.0))
        #expect(!d.inLife && d.reason == .looksLike(c.1))
    }

    @Test("SPEC D9: unsure → Life (short or ordinary text, no text)", arguments: [
        "生日快乐", "EXIT", "Total recall", "北京欢迎你 2024", "",
    ])
    func unsureIsLife(_ text: String) {
        #expect(LifeClassifier.decide(LifeFacts(recognizedText: text)).inLife)
    }

    @Test("SPEC D9: every decision can be overridden by the user")
    func override() {
        #expect(LifeClassifier.decide(LifeFacts(isScreenshot: true), override: .life).inLife)
        let d = LifeClassifier.decide(LifeFacts(), override: .notLife)
        #expect(!d.inLife && d.reason == .userMarked)
    }

    @Test("SPEC D10: the info line says why, with a restore action; absent for Life photos; never the text itself")
    func infoLine() {
        let receipt = "合计 50.50\n实收 100.00"
        let d = LifeClassifier.decide(LifeFacts(recognizedText: receipt))
        #expect(d.infoLine == "图里的字看起来像票据，所以不在「生活」里")
        #expect(d.restoreAction == "放回「生活」")
        #expect(!(d.infoLine ?? "").contains("50.50"))
        #expect(LifeClassifier.decide(LifeFacts(isScreenshot: true)).infoLine == "这是一张截图，所以不在「生活」里")
        #expect(LifeClassifier.decide(LifeFacts(), override: .notLife).infoLine == "你把它标成了不属于「生活」")
        let life = LifeClassifier.decide(LifeFacts())
        #expect(life.infoLine == nil && life.restoreAction == nil)
    }

    @Test("SPEC D9: the store applies overrides and reads recognized text it holds")
    func storeDecisions() throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let org = OrganizeStore(store: try RecordStore(path: folder.file("life.sqlite")))
        var shot = organizeAsset("shot")
        shot.isScreenshot = true
        let stored = try org.record([shot, organizeAsset("photo"), organizeAsset("bill")], nowMs: 1)
        try org.setRecognizedText("合计 50.50\n实收 100.00", assetID: stored[2].id)
        try org.setLifeOverride(.life, assetID: stored[0].id)
        var decisions = Dictionary(uniqueKeysWithValues: try org.lifeDecisions().map { ($0.asset.id, $0.decision) })
        #expect(decisions[stored[0].id]?.inLife == true)
        #expect(decisions[stored[1].id]?.inLife == true)
        #expect(decisions[stored[2].id]?.reason == .looksLike(.receipt))
        try org.setLifeOverride(nil, assetID: stored[0].id)
        decisions = Dictionary(uniqueKeysWithValues: try org.lifeDecisions().map { ($0.asset.id, $0.decision) })
        #expect(decisions[stored[0].id]?.reason == .screenshot)
    }
}
