# The fixture site in a container: docker build -t webkrab . && docker run --rm -p 8080:8080 -p 8081:8081 webkrab
# (README.md, "The fixture site in a container"). Node 20, as package.json's engines say.

FROM node:20-slim AS build
WORKDIR /webkrab
# better-sqlite3 builds from source when no prebuilt binary fits
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY . .
# npm ci runs the package's prepare script (scripts/prepare.mjs: tsc -p . in a clone), which writes dist/
RUN npm ci
RUN npm prune --omit=dev

FROM node:20-slim
WORKDIR /webkrab
COPY --from=build /webkrab /webkrab
# the main origin on 8080, the catalogue's second origin (offsite) on 8081
EXPOSE 8080 8081
ENTRYPOINT ["node", "dist/bin/webkrab.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
