// The built-in data sources: description and factory of each.

#include <cctype>
#include <fstream>

#include "engine/data/datasets/FashionMnist.h"
#include "engine/data/datasets/NumpyData.h"
#include "engine/data/datasets/SyntheticData.h"
#include "engine/data/formats/NpyFile.h"
#include "engine/project/builtin/Builtin.h"
#include "engine/project/registry/ComponentFactories.h"

namespace tbench {

namespace {

OpenedSource openIdx(std::shared_ptr<IdxClassificationData> flow) {
  const auto shape = flow->imageShape();
  OpenedSource out{flow, ImageShape{shape[0], shape[1], shape[2]}, flow->numClasses()};
  out.facts.classCounts = classCountsOf(flow->labels(), flow->numClasses());
  return out;
}

IdxClassificationData::Options idxOptions(const Settings& s, const OpenRequest& request) {
  return IdxClassificationData::Options()
      .limit(s.integer("limit"))
      .shuffle(request.shuffle)
      .seed(request.seed);
}

/// The sample count in an IDX label file's header (plain files only); 0 when unknown.
int64_t idxLabelCount(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) return 0;
  std::ifstream in(path, std::ios::binary);
  unsigned char header[8] = {};
  if (!in.read(reinterpret_cast<char*>(header), 8)) return 0;
  return (int64_t(header[4]) << 24) | (header[5] << 16) | (header[6] << 8) | header[7];
}

}  // namespace

void registerBuiltinData(ComponentRegistry& registry) {
  registerDataSource(
      registry,
      describe("fashion-mnist", "Fashion-MNIST from the dataset-fashion-mnist package (IDX files)",
               {key::choice("split", "train", {"train", "test"})
                    .label("Split")
                    .help("The training (60000) or test (10000) images"),
                key::directory("dir")
                    .label("Directory")
                    .help("Directory of the Fashion-MNIST files; empty: the package's")
                    .placeholder(FashionMnist::kDefaultDir)}),
      {[](const Settings& s, const OpenRequest& request) {
         OpenedSource out = openIdx(std::make_shared<FashionMnist>(
             s.string("split"), s.string("dir"), idxOptions(s, request)));
         // The dataset's class names (github.com/zalandoresearch/fashion-mnist).
         out.facts.classNames = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                 "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
         return out;
       },
       [](const Settings& s) -> int64_t { return s.string("split") == "test" ? 10000 : 60000; }});

  const std::string idxFilter = "IDX files (*-ubyte *-ubyte.gz *.idx *.gz);;All files (*)";
  registerDataSource(registry,
                     describe("idx", "Any image classification set in IDX files (MNIST's format)",
                              {key::file("images")
                                   .label("Images")
                                   .help("Path of an IDX image file, plain or .gz")
                                   .required()
                                   .notEmpty()
                                   .filter(idxFilter),
                               key::file("labels")
                                   .label("Labels")
                                   .help("Path of an IDX label file, plain or .gz")
                                   .required()
                                   .notEmpty()
                                   .filter(idxFilter)}),
                     {[](const Settings& s, const OpenRequest& request) {
                        return openIdx(std::make_shared<IdxClassificationData>(
                            s.string("images"), s.string("labels"), idxOptions(s, request)));
                      },
                      [](const Settings& s) { return idxLabelCount(s.string("labels")); }});

  const SyntheticData::Options synthetic;
  ComponentType syntheticType =
      describe("synthetic", "Class-dependent patterns plus noise; trains in seconds",
               {key::integer("num_samples", synthetic.numSamples())
                    .label("Samples")
                    .help("Number of samples")
                    .atLeast(1),
                key::integer("image_size", synthetic.imageSize())
                    .label("Image size")
                    .help("Side of the square images")
                    .atLeast(4),
                key::integer("num_classes", synthetic.numClasses())
                    .label("Classes")
                    .help("Number of classes")
                    .atLeast(2),
                key::number("noise", synthetic.noise())
                    .label("Noise")
                    .help("Noise added to the class patterns")
                    .atLeast(0),
                key::seed("seed", synthetic.dataSeed())
                    .label("Pattern seed")
                    .help("Seed of the class patterns"),
                key::seed("sample_seed", synthetic.sampleSeed())
                    .label("Sample seed")
                    .help("0: samples follow the patterns' generator; else their own generator")});
  // A validation copy of a synthetic source shares its patterns and draws other samples.
  syntheticType.traits = {{"held_out_by", "sample_seed"}};
  registerDataSource(
      registry, syntheticType,
      {[](const Settings& s, const OpenRequest& request) {
         auto flow = std::make_shared<SyntheticData>(SyntheticData::Options()
                                                         .numSamples(s.integer("num_samples"))
                                                         .imageSize(s.integer("image_size"))
                                                         .numClasses(s.integer("num_classes"))
                                                         .noise(s.number("noise"))
                                                         .dataSeed(s.seed("seed"))
                                                         .sampleSeed(s.seed("sample_seed"))
                                                         .shuffle(request.shuffle)
                                                         .seed(request.seed)
                                                         .limit(s.integer("limit")));
         const int64_t size = s.integer("image_size");
         // Its labels are drawn by resetState(): no class counts upfront.
         return OpenedSource{flow, ImageShape{1, size, size}, s.integer("num_classes")};
       },
       [](const Settings& s) { return s.integer("num_samples"); }});

  const std::string npyFilter = "NumPy arrays (*.npy *.npz);;All files (*)";
  ComponentType numpy = describe(
      "numpy",
      "Features and integer class labels: two .npy files (np.save) or arrays of .npz archives "
      "(np.savez)",
      {key::file("features")
           .label("Features")
           .help("A .npy file, or an array of an .npz as ARCHIVE.npz:NAME (NAME as given to "
                 "np.savez; arr_0 for the first positional array): [N, D], [N, H, W] or "
                 "[N, C, H, W], little-endian float32, float64, int64 or uint8 (scaled to "
                 "[0, 1]), C order")
           .required()
           .notEmpty()
           .filter(npyFilter),
       key::file("labels")
           .label("Labels")
           .help("A .npy file or ARCHIVE.npz:NAME: an array [N] of int64 or uint8 class "
                 "labels >= 0")
           .required()
           .notEmpty()
           .filter(npyFilter)});
  numpy.check = [](const Settings& s, CheckContext& context) {
    for (const char* key : {"features", "labels"}) {
      const std::string path = s.string(key);
      if (context.invalid(key) || path.size() < 4) continue;
      std::string suffix = path.substr(path.size() - 4);
      for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (suffix == ".npz") {
        context.report(key, str("\"", path, "\" is an archive: name one of its arrays as \"", path,
                                ":NAME\""));
      }
    }
  };
  registerDataSource(
      registry, numpy,
      {[](const Settings& s, const OpenRequest& request) {
         auto flow =
             std::make_shared<NumpyClassificationData>(s.string("features"), s.string("labels"),
                                                       NumpyClassificationData::Options()
                                                           .limit(s.integer("limit"))
                                                           .shuffle(request.shuffle)
                                                           .seed(request.seed));
         const auto shape = flow->sampleShape();
         OpenedSource out{flow, ImageShape{shape[0], shape[1], shape[2]}, flow->numClasses()};
         out.facts.classCounts = classCountsOf(flow->labels(), flow->numClasses());
         return out;
       },
       [](const Settings& s) -> int64_t {
         try {
           const NpyHeader header = readNpyHeader(s.string("labels"));
           return header.shape.empty() ? 0 : header.shape[0];
         } catch (const InputError&) {
           return 0;  // a preview; validation of the run reports the file
         }
       }});
}

}  // namespace tbench
