// GoogleTests of the eager special-function kernels (kernels/cpu/Special.cpp):
// float64 values against mpmath (40 digits), ATen's domain
// conventions, the orthogonal polynomials, dtype rules and broadcasting.
#include "kiln/library.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
Tensor D(const std::vector<double> &v) {
  Tensor t = Tensor::empty({(int64_t)v.size()}, DType::Float64);
  std::copy(v.begin(), v.end(), t.data<double>());
  return t;
}
std::vector<double> vals(const Tensor &t) {
  const double *p = t.data<double>();
  return std::vector<double>(p, p + t.numel());
}

/// Reference values for unary functions, from mpmath at 40 digits.
struct Ref {
  const char *op;
  std::vector<double> x, want;
};
const std::vector<Ref> &refs() {
  static const std::vector<Ref> r = {
      {"aten::lgamma",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {-75.22646798193337, -20.1153462703953, -8.072039736012833, -0.056243716497674054, 1.5757045971498584, 6.908333317515028, 6.907178885383853, 1.0957979948180756, 0.0, 0.2846828704729192, 8.32426586800881, 17.25847745059552, 17.74700727079874, 54.78472939811232, 74.65823634883016, 269.2910976510198, 3883.399751943677}},
      {"aten::digamma",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {3.434030554207563, 2.565195651274912, -7.540007224419479, 1.103156640645243, -2.894120200042932, 999.4211381978913, -1000.5755719318103, -3.502524222200133, -0.5772156649015329, 0.7031566406452432, 2.002238487563571, 2.4339335368825377, 2.4513143481743374, 3.198742512851974, 3.4177714660188583, 4.375763614043984, 6.550365879261126}},
      {"aten::i0",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {1278062138712.5664, 30596.335155785153, 389.406283282158, 3.289839144050123, 1.1456467780440014, 1.0000002500000156, 1.0000002500000156, 1.022626879351597, 1.2660658777520084, 3.289839144050123, 389.406283282158, 17219.24027626803, 20853.117403880697, 5774560606.4663105, 2089962966491.9038, 2.4751784043341704e+33, 1.5295933476718737e+302}},
      {"aten::special_i0e",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {0.07253878407077907, 0.1140219294622889, 0.14436986414104191, 0.27004644161220276, 0.5411652192034954, 0.9990007495835156, 0.9990007495835156, 0.7575806251825479, 0.46575960759364043, 0.27004644161220276, 0.14436986414104191, 0.11692561195139262, 0.11593318233655986, 0.0801967735474367, 0.07194649669698383, 0.044673291782275276, 0.015081295651531358}},
      {"aten::special_i1",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {-1256932623308.4714, -29345.74964207113, -363.8539440845084, -2.5167162452886984, -0.4019924615809222, -0.0005000000625000026, 0.0005000000625000026, 0.15169384000359276, 0.565159103992485, 2.5167162452886984, 363.8539440845084, 16479.060192397505, 19971.911047960126, 5657865129.878701, 2055972795294.5647, 2.459659579567541e+33, 1.5285003902339006e+302}},
      {"aten::special_i1e",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {-0.071339539285262, -0.10936143099065089, -0.13489649943989376, -0.20658464953126657, -0.18988779330485503, -0.0004995003123542213, 0.0004995003123542213, 0.1123775606398388, 0.20791041534970844, 0.20658464953126657, 0.13489649943989376, 0.11189948955155167, 0.11103410393219318, 0.07857611331929278, 0.07077639283438568, 0.044393200058097465, 0.015070519444716848}},
      {"aten::special_modified_bessel_k0",
       {0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {7.023688800562382, 1.3724600605442974, 0.42102443824070834, 0.06234755320036619, 0.0001628676676876532, 2.442288637172271e-06, 1.983301354398536e-06, 3.4641615622131143e-12, 7.718382655527615e-15, 2.5251198425054717e-36, 4.669776431685377e-306}},
      {"aten::special_modified_bessel_k1",
       {0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {999.9962381560856, 3.055992033457325, 0.6019072301972346, 0.07389081634774707, 0.00017288430649238984, 2.542910795347697e-06, 2.0636871233371854e-06, 3.5327780731999337e-12, 7.841899600834063e-15, 2.54085312752117e-36, 4.6731107967079664e-306}},
      {"aten::special_scaled_modified_bessel_k0",
       {0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {7.030716002378251, 1.8526273007720142, 1.144463079806895, 0.7595486903280996, 0.4393000819002152, 0.35966760545970905, 0.35674010802605133, 0.2494366045755967, 0.2242101374192749, 0.13990735522662032, 0.04736236945461357}},
      {"aten::special_scaled_modified_bessel_k1",
       {0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {1000.9967345590684, 4.12515776224447, 1.6361534862632583, 0.900174423907878, 0.4663177847368799, 0.3744858911186251, 0.37119924598374593, 0.25437732954208525, 0.2277981625945925, 0.14077907713800053, 0.04739618765349454}},
      {"aten::special_bessel_j0",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {-0.01938975451776215, 0.1468840547004211, 0.19436184484127825, -0.048383776468198, 0.8642422751666486, 0.9999997500000156, 0.9999997500000156, 0.9776262465382961, 0.7651976865579666, -0.048383776468198, 0.19436184484127825, 0.025049441699589645, 0.06966677360680731, 0.09626678327595811, 0.05120814530454225, -0.06974216551221002, -0.006288272465068767}},
      {"aten::special_bessel_j1",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {0.14349430015097095, 0.16548380461475973, -0.2191793999217512, -0.49709410246427405, -0.34924360217486217, -0.0004999999375000026, 0.0004999999375000026, 0.148318816273104, 0.4400505857449335, 0.49709410246427405, 0.2191793999217512, -0.22898324966192404, -0.2157489733769248, -0.1253502495802899, -0.1330243166663142, -0.056057296675712576, 0.029489824084030333}},
      {"aten::special_bessel_y0",
       {0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {-4.471416611375923, -0.8072735778045195, 0.08825696421567696, 0.4980703596152319, 0.20652094814437577, -0.22983321394337505, -0.2184383805509255, -0.12724943226800614, -0.1338326605036443, -0.05562033908977, 0.02949430818089382}},
      {"aten::special_bessel_y1",
       {0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {-636.6221672311394, -2.2931051383885293, -0.7812128213002887, 0.1459181379667858, -0.18172107728057313, -0.03471149833403061, -0.07873693145139575, -0.09882996478323741, -0.053372826957321595, 0.06939591378458805, 0.00630934142145256}},
      {"aten::special_spherical_bessel_j0",
       {-30.5, -12.5, -7.9, -2.5, -0.75, -0.001, 0.001, 0.3, 1.0, 2.5, 7.9, 11.9, 12.1, 25.0, 31.0, 80.0, 700.0},
       {-0.02600417178548476, -0.0053057517880960555, 0.12644827111895848, 0.2393888576415826, 0.9088516800311123, 0.9999998333333416, 0.9999998333333416, 0.9850673555377986, 0.8414709848078965, 0.2393888576415826, 0.12644827111895848, -0.05194429514596918, -0.03716094748219847, -0.005294070003910921, -0.01303347242977629, -0.01242360817404219, 0.0007771007476619652}},
      {"aten::special_airy_ai",
       {-30.5, -12.5, -7.9, -2.5, -0.75, 0.3, 1.0, 2.5, 7.9, 25.0},
       {-0.004333637288742865, -0.27627456138116024, 0.041701883617386706, -0.11232506769296609, 0.5177725751515836, 0.2788064819550049, 0.13529241631288141, 0.01572592338047049, 6.239640097283934e-08, 8.116026824691387e-38}},
      {"aten::special_erfcx",
       {-20.0, -2.5, -0.75, 0.3, 1.0, 2.5, 7.9, 24.9, 25.1, 80.0, 700.0},
       {1.0442939379528289e+174, 1035.814842972623, 3.003171663627452, 0.7345993345676551, 0.427583576155807, 0.2108063640611436, 0.07085747736739713, 0.022639987776049506, 0.02245987581758139, 0.007051818957039103, 0.0008059842969226599}},
      {"aten::special_log_ndtr",
       {-40.0, -12.5, -2.5, -0.75, 0.3, 1.0, 2.5, 7.9},
       {-804.6084420137538, -81.57596787074388, -5.08164827727869, -1.4844482299196562, -0.4814101615884812, -0.17275377902344988, -0.006229025485860002, -1.3945171466592653e-15}},
      {"aten::special_ndtri",
       {1e-20, 1e-05, 0.02, 0.3, 0.5, 0.7, 0.975, 0.99999},
       {-9.262340089798407, -4.264890793922825, -2.053748910631823, -0.5244005127080408, 0.0, 0.5244005127080407, 1.9599639845400538, 4.264890793923841}},
  };
  return r;
}

void expectClose(double got, double want, const std::string &what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got;
  } else if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what;
  } else {
    EXPECT_NEAR(got, want, 1e-10 * std::abs(want) + 1e-13) << what;
  }
}
} // namespace

TEST(SpecialKernels, MatchPyTorchFloat64) {
  for (const Ref &r : refs()) {
    std::vector<double> got = vals(call(r.op, D(r.x)));
    ASSERT_EQ(got.size(), r.want.size()) << r.op;
    for (size_t i = 0; i < got.size(); ++i)
      expectClose(got[i], r.want[i], std::string(r.op) + "(" + std::to_string(r.x[i]) + ")");
  }
}

TEST(SpecialKernels, DomainConventions) {
  auto one = [](const char *op, double x) { return vals(call(op, D({x})))[0]; };
  EXPECT_EQ(one("aten::digamma", 0.0), -INFINITY);
  EXPECT_EQ(one("aten::digamma", -0.0), INFINITY);
  EXPECT_TRUE(std::isnan(one("aten::digamma", -2.0)));
  EXPECT_EQ(one("aten::special_bessel_y0", 0.0), -INFINITY);
  EXPECT_TRUE(std::isnan(one("aten::special_bessel_y1", -1.0)));
  EXPECT_EQ(one("aten::special_modified_bessel_k0", 0.0), INFINITY);
  EXPECT_TRUE(std::isnan(one("aten::special_modified_bessel_k1", -1.0)));
  EXPECT_EQ(one("aten::special_ndtri", 0.0), -INFINITY);
  EXPECT_EQ(one("aten::special_ndtri", 1.0), INFINITY);
  EXPECT_TRUE(std::isnan(one("aten::special_ndtri", 1.5)));
  EXPECT_EQ(one("aten::i0", INFINITY), INFINITY);
  EXPECT_EQ(one("aten::special_i0e", INFINITY), 0.0);
  auto zeta = [](double s, double q) { return vals(call("aten::special_zeta", D({s}), D({q})))[0]; };
  EXPECT_EQ(zeta(1, 2), INFINITY);
  EXPECT_TRUE(std::isnan(zeta(0.5, 2)));
  EXPECT_EQ(zeta(2, -3), INFINITY);
  EXPECT_TRUE(std::isnan(zeta(2.5, -3.5)));
  EXPECT_NEAR(zeta(2, 1), M_PI * M_PI / 6, 1e-14);
  EXPECT_NEAR(zeta(3, 1), 1.2020569031595942, 1e-14);
  // Integer s and negative q: the series over (q + k)^-s.
  EXPECT_NEAR(zeta(2, -2.5), 1 / 6.25 + 1 / 2.25 + 1 / 0.25 + zeta(2, 0.5), 1e-12);
  auto ig = [](const char *op, double a, double x) { return vals(call(op, D({a}), D({x})))[0]; };
  EXPECT_NEAR(ig("aten::igamma", 1, 2.5), 1 - std::exp(-2.5), 1e-14);
  EXPECT_NEAR(ig("aten::igammac", 2, 3), 4 * std::exp(-3.0), 1e-14);
  EXPECT_NEAR(ig("aten::igammac", 0.5, 40), std::erfc(std::sqrt(40.0)), 1e-25);
  EXPECT_EQ(ig("aten::igamma", 3, 0), 0.0);
  EXPECT_TRUE(std::isnan(ig("aten::igamma", -1, 1)));
}

TEST(SpecialKernels, PolygammaAndMvlgamma) {
  auto pg = [](int64_t n, double x) { return vals(call("aten::polygamma", n, D({x})))[0]; };
  EXPECT_NEAR(pg(0, 1), -0.5772156649015329, 1e-14);
  EXPECT_NEAR(pg(1, 1), M_PI * M_PI / 6, 1e-13);
  EXPECT_NEAR(pg(2, 1), -2.4041138063191885, 1e-13);
  EXPECT_NEAR(pg(3, 0.5), std::pow(M_PI, 4), 1e-10);
  EXPECT_THROW(call("aten::polygamma", (int64_t)-1, D({1.0})), Error);
  double want = 3 * std::log(M_PI) / 2 + std::lgamma(2.5) + std::lgamma(2.0) + std::lgamma(1.5);
  EXPECT_NEAR(vals(call("aten::mvlgamma", D({2.5}), (int64_t)3))[0], want, 1e-13);
}

TEST(SpecialKernels, OrthogonalPolynomials) {
  auto p = [](const char *op, double x, double n) {
    return vals(call(std::string("aten::special_") + op, D({x}), D({n})))[0];
  };
  EXPECT_NEAR(p("chebyshev_polynomial_t", 0.5, 3), -1, 1e-14);     // 4x^3 - 3x
  EXPECT_NEAR(p("chebyshev_polynomial_t", 2, 3), 26, 1e-12);
  EXPECT_NEAR(p("chebyshev_polynomial_u", 0.5, 2), 0, 1e-14);      // 4x^2 - 1
  EXPECT_NEAR(p("chebyshev_polynomial_u", -1, 3), -4, 1e-14);      // (-1)^n (n + 1)
  EXPECT_NEAR(p("chebyshev_polynomial_v", -1, 2), 5, 1e-14);       // (-1)^n (2n + 1)
  EXPECT_NEAR(p("chebyshev_polynomial_w", 0.3, 1), 1.6, 1e-14);    // 2x + 1
  EXPECT_NEAR(p("chebyshev_polynomial_w", 3, 2), 4 * 9 + 2 * 3 - 1, 1e-12);
  EXPECT_NEAR(p("hermite_polynomial_h", 2, 3), 40, 1e-12);         // 8x^3 - 12x
  EXPECT_NEAR(p("hermite_polynomial_he", 2, 3), 2, 1e-12);         // x^3 - 3x
  EXPECT_NEAR(p("laguerre_polynomial_l", 1, 2), -0.5, 1e-14);      // (x^2 - 4x + 2) / 2
  EXPECT_NEAR(p("legendre_polynomial_p", 0.5, 2), -0.125, 1e-14);  // (3x^2 - 1) / 2
  EXPECT_NEAR(p("shifted_chebyshev_polynomial_t", 0.75, 2), -0.5, 1e-14); // T2(0.5)
  EXPECT_EQ(p("chebyshev_polynomial_t", 0.5, -1), 0.0);            // a negative degree
  EXPECT_NEAR(p("chebyshev_polynomial_t", 0.5, 2.9), -0.5, 1e-14); // the degree truncates
  // Scalar overloads and broadcasting: x of [3] against n of [2, 1].
  Tensor n = Tensor::empty({2, 1}, DType::Float64);
  n.data<double>()[0] = 1;
  n.data<double>()[1] = 2;
  Tensor r = call("aten::special_legendre_polynomial_p", D({0, 0.5, 1}), n);
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{2, 3}));
  std::vector<double> got = vals(r), want = {0, 0.5, 1, -0.5, -0.125, 1};
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-14);
  EXPECT_NEAR(vals(call("aten::special_hermite_polynomial_h.n_scalar", D({2}), 3.0))[0], 40, 1e-12);
  EXPECT_NEAR(vals(call("aten::special_hermite_polynomial_h.x_scalar", 2.0, D({3})))[0], 40, 1e-12);
}

TEST(SpecialKernels, DtypesNextafterFrexp) {
  // Integers give float32; float32 stays float32.
  Tensor i = Tensor::empty({2}, DType::Int64);
  i.data<int64_t>()[0] = 1;
  i.data<int64_t>()[1] = 5;
  Tensor l = call("aten::lgamma", i);
  EXPECT_EQ(l.dtype(), DType::Float32);
  EXPECT_NEAR(l.data<float>()[1], std::log(24.0f), 1e-6);
  // float16 in, float16 out (0x3c00 is 1.0; lgamma(3) = log 2 = 0x398c in float16).
  Tensor h = Tensor::empty({1}, DType::Float16);
  uint16_t three = 0x4200;
  std::memcpy(h.rawData(), &three, 2);
  Tensor hl = call("aten::lgamma", h);
  EXPECT_EQ(hl.dtype(), DType::Float16);
  uint16_t got;
  std::memcpy(&got, hl.rawData(), 2);
  EXPECT_EQ(got, 0x398c);
  // nextafter steps by the dtype's own ulp.
  Tensor a = Tensor::empty({1}, DType::Float32), b = Tensor::empty({1}, DType::Float32);
  a.data<float>()[0] = 1;
  b.data<float>()[0] = 2;
  EXPECT_EQ(call("aten::nextafter", a, b).data<float>()[0], 1 + std::ldexp(1.0f, -23));
  auto [m, e] = call<std::tuple<Tensor, Tensor>>("aten::frexp.Tensor", D({8, -0.375, 0}));
  EXPECT_EQ(e.dtype(), DType::Int32);
  EXPECT_EQ(vals(m), (std::vector<double>{0.5, -0.75, 0}));
  EXPECT_EQ(std::vector<int32_t>(e.data<int32_t>(), e.data<int32_t>() + 3),
            (std::vector<int32_t>{4, -1, 0}));
}
