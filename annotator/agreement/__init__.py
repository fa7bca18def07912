"""Agreement statistics: Krippendorff's alpha, kappas, span F1, sentence-level alpha and the
report. Pure: plain data in (:class:`data.AgreementInput`), plain data out."""
