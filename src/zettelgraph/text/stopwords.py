"""Function words dropped from full-text queries (Spanish and English, the languages the
default embedder and the concept language cover), per language, and the language guess that
rests on them (`text.language.detect_language`).

The Spanish list is Snowball's; the English one Snowball's too. Both are lists of words that
carry no topic, so dropping them changes which passages BM25 prefers only by removing noise:
a question's "¿Cuántos ... de la ...?" no longer rewards passages full of "de" and "la".
"""

from __future__ import annotations

from zettelgraph.text.normalize import normalize_name

_SPANISH = """
de la que el en y a los del se las por un para con no una su al lo como más pero sus le ya o
este sí porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos
durante todos uno les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo
otro otras otra él tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas
algo nosotros mi mis tú te ti tu tus ellas nosotras vosotros vosotras os mío mía míos mías tuyo
tuya tuyos tuyas suyo suya suyos suyas nuestro nuestra nuestros nuestras vuestro vuestra
vuestros vuestras esos esas estoy estás está estamos estáis están esté estés estemos estéis
estén estaré estarás estará estaremos estaréis estarán estaría estarías estaríamos estaríais
estarían estaba estabas estábamos estabais estaban estuve estuviste estuvo estuvimos
estuvisteis estuvieron he has ha hemos habéis han haya hayas hayamos hayáis hayan habré habrás
habrá habremos habréis habrán habría habrías habríamos habríais habrían había habías habíamos
habíais habían hube hubiste hubo hubimos hubisteis hubieron soy eres es somos sois son sea seas
seamos seáis sean seré serás será seremos seréis serán sería serías seríamos seríais serían era
eras éramos erais eran fui fuiste fue fuimos fuisteis fueron tengo tienes tiene tenemos tenéis
tienen tenga tengas tengamos tengáis tengan tendré tendrás tendrá tendremos tendréis tendrán
tendría tendrías tendríamos tendríais tendrían tenía tenías teníamos teníais tenían tuve tuviste
tuvo tuvimos tuvisteis tuvieron
cuál cuáles cuánto cuánta cuántos cuántas cómo dónde cuándo quién quiénes
"""

_ENGLISH = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves what which who whom this that
these those am is are was were be been being have has had having do does did doing would should
could ought a an the and but if or because as until while of at by for with about against
between into through during before after above below to from up down in out on off over under
again further then once here there when where why how all any both each few more most other
some such no nor not only own same so than too very
"""

# Accent-folded, as analysed tokens are compared with them.
STOPWORDS_BY_LANGUAGE = {
    "es": frozenset(normalize_name(word) for word in _SPANISH.split()),
    "en": frozenset(normalize_name(word) for word in _ENGLISH.split()),
}
STOPWORDS = STOPWORDS_BY_LANGUAGE["es"] | STOPWORDS_BY_LANGUAGE["en"]
