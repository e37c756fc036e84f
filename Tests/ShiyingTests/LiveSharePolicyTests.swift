// SPEC S1 + S2 as a pure policy: one item per share; file-only targets get
// the still, others the Live photo; a pair that fails SPEC C3 is a still for
// every target (identifier stripped, SPEC C4); an edited photo is shared as
// its baked rendition, never the original plus a recipe.
import Shiying
import Testing

@Suite("Live share policy (SPEC S1, S2)")
struct LiveSharePolicyTests {
    let ok = LiveVerification.ok(contentIdentifier: "0C0FFEE0-1234-4ABC-9DEF-00112233AABB", stillTime: 1.5)
    let pair = LiveSharePolicy.Source(still: "IMG.HEIC", movie: "IMG.MOV")

    @Test("S1: file-only targets get the still, Live-capable targets the pair")
    func targets() {
        #expect(LiveSharePolicy.payload(for: .fileOnly, source: pair, verification: ok) == .still("IMG.HEIC", stripIdentifier: false))
        #expect(LiveSharePolicy.payload(for: .livePhotoCapable, source: pair, verification: ok)
            == .livePhoto(still: "IMG.HEIC", movie: "IMG.MOV"))
    }

    @Test("S1 + C3: a failing or unchecked pair is a plain still for every target", arguments: [
        LiveVerification.mismatch(reason: "content identifiers differ"), LiveVerification.timeout,
    ])
    func failingPair(outcome: LiveVerification) {
        for target in [LiveSharePolicy.Target.fileOnly, .livePhotoCapable] {
            #expect(LiveSharePolicy.payload(for: target, source: pair, verification: outcome) == .still("IMG.HEIC", stripIdentifier: true))
            #expect(LiveSharePolicy.payload(for: target, source: pair, verification: nil) == .still("IMG.HEIC", stripIdentifier: true))
        }
    }

    @Test("S2: an edited Live photo is shared baked; without the baked rendition it must be rendered first")
    func bakedPoster() {
        var recipe = EditRecipe()
        recipe.adjustments.exposure = 0.5
        let unbaked = LiveSharePolicy.Source(still: "IMG.HEIC", movie: "IMG.MOV", recipe: recipe)
        #expect(LiveSharePolicy.payload(for: .livePhotoCapable, source: unbaked, verification: ok) == .renderEditFirst)
        #expect(LiveSharePolicy.payload(for: .fileOnly, source: unbaked, verification: ok) == .renderEditFirst)
        let baked = LiveSharePolicy.Source(still: "IMG.HEIC", movie: "IMG.MOV", recipe: recipe,
                                           bakedStill: "IMG_edited.jpg", bakedMovie: "IMG_edited.mov")
        #expect(LiveSharePolicy.payload(for: .livePhotoCapable, source: baked, verification: ok)
            == .livePhoto(still: "IMG_edited.jpg", movie: "IMG_edited.mov"))
        #expect(LiveSharePolicy.payload(for: .fileOnly, source: baked, verification: ok) == .still("IMG_edited.jpg", stripIdentifier: false))
        // a failing baked pair: still the baked poster, as a plain still
        #expect(LiveSharePolicy.payload(for: .livePhotoCapable, source: baked, verification: .timeout)
            == .still("IMG_edited.jpg", stripIdentifier: true))
        // E1: a bordered edit baked as a still only shares that still
        let still = LiveSharePolicy.Source(still: "IMG.HEIC", movie: "IMG.MOV", recipe: recipe, bakedStill: "IMG_framed.jpg")
        #expect(LiveSharePolicy.payload(for: .livePhotoCapable, source: still, verification: .mismatch(reason: "no movie"))
            == .still("IMG_framed.jpg", stripIdentifier: true))
    }
}
