//===- views/SelectChart.cpp - The fastest algorithm as a map -------------===//
///
/// \file
/// The SVG of `choreo select --plot`: one rectangle per (p, n) cell in the
/// winner's colour, axes labelled, a legend of the algorithms that win
/// somewhere.
///
//===----------------------------------------------------------------------===//

#include "views/SelectChart.h"

#include "studies/Compare.h"

#include "llvm/Support/FormatVariadic.h"

using namespace choreo;
using llvm::formatv;

void choreo::writeSelectSvg(const SelectMap &M, llvm::StringRef Title,
                            llvm::raw_ostream &OS) {
  static const char *Colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                 "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                 "#bcbd22", "#17becf"};
  const double Left = 70, Top = 40, CellW = 28;
  double CellH = M.Ps.size() > 64 ? 4 : 12;
  double W = Left + CellW * M.Sizes.size() + 260;
  double H = Top + CellH * M.Ps.size() + 60;
  OS << formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                "height=\"{1}\" font-family=\"sans-serif\" font-size=\"11\">\n",
                W, H);
  OS << formatv("<text x=\"{0}\" y=\"20\" font-size=\"14\">{1}</text>\n",
                Left, Title);
  // Rows: p ascending upwards.
  for (size_t I = 0; I < M.Ps.size(); ++I) {
    double Y = Top + CellH * (M.Ps.size() - 1 - I);
    for (size_t J = 0; J < M.Sizes.size(); ++J) {
      unsigned A = M.Winner[I][J];
      OS << formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                    "fill=\"{4}\"><title>p = {5}, n = {6}: {7}</title></rect>\n",
                    Left + CellW * J, Y, CellW, CellH, Colors[A % 10],
                    M.Ps[I], sizeLabel(M.Sizes[J]), M.Algorithms[A]);
    }
    bool Label = M.Ps.size() <= 16 || M.Ps[I] % 16 == 0 || I == 0;
    if (Label)
      OS << formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2}</text>\n",
                    Left - 4, Y + CellH, M.Ps[I]);
  }
  double Bottom = Top + CellH * M.Ps.size();
  for (size_t J = 0; J < M.Sizes.size(); J += 2)
    OS << formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n",
                  Left + CellW * (J + 0.5), Bottom + 14, sizeLabel(M.Sizes[J]));
  OS << formatv("<text x=\"{0}\" y=\"{1}\">vector length n (bytes)</text>\n",
                Left, Bottom + 32);
  OS << formatv("<text x=\"12\" y=\"{0}\" transform=\"rotate(-90 12 {0})\">"
                "processes p</text>\n",
                Top + CellH * M.Ps.size() / 2);
  // Legend: the algorithms that win somewhere.
  double LX = Left + CellW * M.Sizes.size() + 16, LY = Top;
  for (size_t A = 0; A < M.Algorithms.size(); ++A) {
    bool Wins = false;
    for (const auto &Row : M.Winner)
      for (unsigned X : Row)
        Wins |= X == A;
    if (!Wins)
      continue;
    OS << formatv("<rect x=\"{0}\" y=\"{1}\" width=\"12\" height=\"12\" "
                  "fill=\"{2}\"/>\n<text x=\"{3}\" y=\"{4}\">{5}</text>\n",
                  LX, LY, Colors[A % 10], LX + 18, LY + 10, M.Algorithms[A]);
    LY += 18;
  }
  OS << "</svg>\n";
}
