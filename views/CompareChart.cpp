//===- views/CompareChart.cpp - The comparison study as an SVG chart ------===//
///
/// \file
/// Two panels of polylines written directly as SVG (no plotting dependency):
/// predicted times against message size, and speed-ups over the first
/// algorithm.
///
//===----------------------------------------------------------------------===//

#include "views/CompareChart.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace choreo;

//===----------------------------------------------------------------------===//
// SVG
//===----------------------------------------------------------------------===//

namespace {

/// A value as text: %g.
std::string num(double V) {
  char Buf[32];
  snprintf(Buf, sizeof Buf, "%g", V);
  return Buf;
}

const char *Colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                        "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string xmlEscape(llvm::StringRef S) {
  std::string R;
  for (char C : S) {
    switch (C) {
    case '&':
      R += "&amp;";
      break;
    case '<':
      R += "&lt;";
      break;
    case '>':
      R += "&gt;";
      break;
    case '"':
      R += "&quot;";
      break;
    default:
      R += C;
    }
  }
  return R;
}

/// One panel: a rectangle in the image and the data range it shows.
struct Panel {
  double Left, Top, Width, Height;
  double XLo, XHi, YLo, YHi;
  bool LogY;

  double x(double V) const {
    return Left + (std::log2(V) - XLo) / (XHi - XLo) * Width;
  }
  double y(double V) const {
    double T = LogY ? (std::log10(V) - YLo) / (YHi - YLo)
                    : (V - YLo) / (YHi - YLo);
    return Top + Height - T * Height;
  }
};

/// Tick values for a linear axis over [0, Hi]: 1, 2 or 5 times a power of
/// ten, about five of them.
std::vector<double> linearTicks(double Hi, double &Top) {
  double Raw = Hi / 5, Mag = std::pow(10, std::floor(std::log10(Raw)));
  double Step = Mag;
  for (double M : {1.0, 2.0, 5.0, 10.0})
    if (M * Mag >= Raw) {
      Step = M * Mag;
      break;
    }
  Top = std::ceil(Hi / Step) * Step;
  std::vector<double> Ticks;
  for (double V = 0; V <= Top * (1 + 1e-9); V += Step)
    Ticks.push_back(V);
  return Ticks;
}

void axes(const Panel &P, const CompareTable &T, llvm::StringRef Title,
          llvm::StringRef YLabel, const std::vector<double> &YTicks,
          llvm::raw_ostream &OS) {
  OS << llvm::formatv("<rect x='{0:f1}' y='{1:f1}' width='{2:f1}' height='{3:f1}' "
                      "fill='none' stroke='#444'/>\n",
                      P.Left, P.Top, P.Width, P.Height);
  OS << llvm::formatv("<text x='{0:f1}' y='{1:f1}' text-anchor='middle' "
                      "font-weight='bold'>{2}</text>\n",
                      P.Left + P.Width / 2, P.Top - 12, xmlEscape(Title));
  for (size_t Row = 0; Row < T.Sizes.size(); ++Row) {
    uint64_t S = T.Sizes[Row];
    double X = P.x(double(S));
    OS << llvm::formatv("<line x1='{0:f1}' y1='{1:f1}' x2='{0:f1}' y2='{2:f1}' "
                        "stroke='#ddd'/>\n",
                        X, P.Top, P.Top + P.Height);
    OS << llvm::formatv("<text x='{0:f1}' y='{1:f1}' text-anchor='middle'>{2}"
                        "</text>\n",
                        X, P.Top + P.Height + 16, rowLabel(T, Row));
  }
  for (double V : YTicks) {
    double Y = P.y(V);
    OS << llvm::formatv("<line x1='{0:f1}' y1='{1:f1}' x2='{2:f1}' y2='{1:f1}' "
                        "stroke='#ddd'/>\n",
                        P.Left, Y, P.Left + P.Width);
    OS << llvm::formatv("<text x='{0:f1}' y='{1:f1}' text-anchor='end'>{2}"
                        "</text>\n",
                        P.Left - 6, Y + 4, num(V));
  }
  OS << llvm::formatv("<text x='{0:f1}' y='{1:f1}' text-anchor='middle'>{2}"
                      "</text>\n",
                      P.Left + P.Width / 2, P.Top + P.Height + 36,
                      T.Over.empty()
                          ? std::string("message size (bytes, largest block "
                                        "per process)")
                          : "--" + T.Over);
  OS << llvm::formatv("<text transform='translate({0:f1},{1:f1}) rotate(-90)' "
                      "text-anchor='middle'>{2}</text>\n",
                      P.Left - 58, P.Top + P.Height / 2, xmlEscape(YLabel));
}

void series(const Panel &P, const CompareTable &T,
            llvm::function_ref<double(size_t Row)> Value, size_t Color,
            llvm::StringRef Name, llvm::raw_ostream &OS) {
  OS << "<g class='series' data-name='" << xmlEscape(Name) << "'>\n";
  OS << "<polyline fill='none' stroke-width='2' stroke='"
     << Colors[Color % 8] << "' points='";
  for (size_t R = 0; R < T.Sizes.size(); ++R)
    OS << llvm::formatv("{0:f1},{1:f1} ", P.x(double(T.Sizes[R])),
                        P.y(Value(R)));
  OS << "'/>\n";
  for (size_t R = 0; R < T.Sizes.size(); ++R)
    OS << llvm::formatv("<circle cx='{0:f1}' cy='{1:f1}' r='3' fill='{2}'>"
                        "<title>{3} at {4}: {5}</title></circle>\n",
                        P.x(double(T.Sizes[R])), P.y(Value(R)),
                        Colors[Color % 8], xmlEscape(Name),
                        rowLabel(T, R), num(Value(R)));
  OS << "</g>\n";
}

} // namespace

void choreo::writeCompareSvg(const CompareTable &T, bool Lockstep,
                             const CostModel &M, llvm::raw_ostream &OS) {
  auto Time = [&](size_t R, size_t A) {
    const CompareCell &C = T.Cells[R][A];
    return Lockstep ? C.Lockstep : C.Async;
  };
  size_t NA = T.Algorithms.size();
  bool Ratios = NA > 1;
  double Width = Ratios ? 1000 : 520, Height = 470;
  double XLo = std::log2(double(*llvm::min_element(T.Sizes))),
         XHi = std::log2(double(*llvm::max_element(T.Sizes)));
  if (XHi - XLo < 1e-9) {
    XLo -= 1;
    XHi += 1;
  }
  double Min = INFINITY, Max = 0;
  for (size_t R = 0; R < T.Sizes.size(); ++R)
    for (size_t A = 0; A < NA; ++A) {
      Min = std::min(Min, Time(R, A));
      Max = std::max(Max, Time(R, A));
    }
  // Log scale unless a time is 0 (alpha = beta = 0).
  Panel Times{90, 60, 390, 330, XLo, XHi, 0, 1, Min > 0};
  std::vector<double> YTicks;
  if (Times.LogY) {
    double Lo = std::floor(std::log10(Min)), Hi = std::ceil(std::log10(Max));
    if (Hi - Lo < 1)
      Hi = Lo + 1;
    Times.YLo = Lo;
    Times.YHi = Hi;
    bool Fine = Hi - Lo < 3;
    for (double E = Lo; E <= Hi; ++E)
      for (double F : {1.0, 2.0, 5.0})
        if (F == 1 || Fine) {
          double V = F * std::pow(10, E);
          if (std::log10(V) <= Hi + 1e-9)
            YTicks.push_back(V);
        }
  } else {
    double Top;
    YTicks = linearTicks(Max > 0 ? Max : 1, Top);
    Times.YHi = Top;
  }

  OS << "<?xml version='1.0' encoding='UTF-8'?>\n"
     << llvm::formatv("<svg xmlns='http://www.w3.org/2000/svg' width='{0:f0}' "
                      "height='{1:f0}' viewBox='0 0 {0:f0} {1:f0}' "
                      "font-family='sans-serif' font-size='12'>\n",
                      Width, Height)
     << "<rect width='100%' height='100%' fill='white'/>\n";
  std::string Model = llvm::formatv(
      "{0}, alpha = {1}, beta = {2}{3}", Lockstep ? "lock step" : "asynchronous",
      num(M.Alpha), num(M.Beta),
      M.Gamma > 0 ? ", gamma = " + num(M.Gamma) : "");
  axes(Times, T, "predicted time (" + Model + ")", "time (in the unit of alpha)",
       YTicks, OS);
  for (size_t A = 0; A < NA; ++A)
    series(Times, T, [&](size_t R) { return Time(R, A); }, A,
           T.Algorithms[A], OS);

  if (Ratios) {
    double Max = 0;
    for (size_t R = 0; R < T.Sizes.size(); ++R)
      for (size_t A = 1; A < NA; ++A)
        if (Time(R, A) > 0)
          Max = std::max(Max, Time(R, 0) / Time(R, A));
    double Top;
    std::vector<double> Ticks = linearTicks(Max > 0 ? Max : 1, Top);
    Panel Ratio{590, 60, 390, 330, XLo, XHi, 0, Top, false};
    axes(Ratio, T, "speed-up over " + T.Algorithms[0],
         "time of " + T.Algorithms[0] + " / time", Ticks, OS);
    for (size_t A = 1; A < NA; ++A)
      series(Ratio, T,
             [&](size_t R) {
               return Time(R, A) > 0 ? Time(R, 0) / Time(R, A) : 0.0;
             },
             A, T.Algorithms[A], OS);
  }
  // Legend, under the panels.
  double LX = 90, LY = Height - 22;
  for (size_t A = 0; A < NA; ++A) {
    OS << llvm::formatv("<line x1='{0:f1}' y1='{1:f1}' x2='{2:f1}' y2='{1:f1}' "
                        "stroke='{3}' stroke-width='3'/>\n",
                        LX, LY, LX + 24, Colors[A % 8]);
    OS << llvm::formatv("<text x='{0:f1}' y='{1:f1}'>{2}</text>\n", LX + 30, LY + 4,
                        xmlEscape(T.Algorithms[A]));
    LX += 40 + 7.5 * T.Algorithms[A].size();
  }
  OS << "</svg>\n";
}
